import GraftHost

/// How findings name what they concern.
enum ConformanceKey {
    static func component(_ contract: ComponentContract) -> String { "\(contract.key)@\(contract.version)" }
    static func validator(_ contract: ValidatorContract) -> String { "validator \(contract.name)@\(contract.version)" }
    static func action(_ contract: ActionContract) -> String { "action \(contract.key)@\(contract.version)" }
}
