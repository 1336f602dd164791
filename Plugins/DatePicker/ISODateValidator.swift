import GraftKit

/// The `iso_date` validator: a string naming a real YYYY-MM-DD calendar date.
enum ISODateValidator {
    static func validate(_ value: Value, _ params: [String]) -> ValidationResult {
        guard let text = value.stringValue else { return .invalid("is not a date (expected a YYYY-MM-DD string)") }
        return CalendarDate(parsing: text) == nil ? .invalid(nil) : .valid
    }
}
