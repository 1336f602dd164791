import GraftFlows
import GraftHost

/// A validator call and its answer, as the action log keeps it.
public struct LoggedValidation: Sendable, Hashable {
    public var validator: String
    public var value: GraftValue
    public var params: [String]
    public var isValid: Bool
    public var message: String?

    public init(validator: String, value: GraftValue, params: [String], isValid: Bool, message: String? = nil) {
        self.validator = validator
        self.value = value
        self.params = params
        self.isValid = isValid
        self.message = message
    }

    init(_ record: ValidationRecord) {
        self.init(
            validator: record.validator, value: record.value, params: record.params, isValid: record.isValid,
            message: record.message)
    }
}
