extension GraftHost {
    /// Every registered validator, sorted by name then version.
    public var validators: [RegisteredValidator] { table.validators.all }

    /// Validates `value` with the validator `name` (`luhn` or `luhn@2`) and
    /// the editor's string `params`.
    ///
    /// A value the validator cannot read (text where it takes a number) is
    /// invalid, not an error. Errors: `validator_not_found`; `invalid_param`
    /// for params of the wrong count or that do not convert (naming the
    /// position and the text).
    public func validate(_ name: String, value: GraftValue, params: [String] = []) throws(GraftError) -> ValidationOutcome {
        try validatorRegistry.validate(name: name, value: value, params: params, path: .automatic)
    }

    /// `validate` on a chosen call path: `.libffi` skips the typed fast path
    /// (tests, benchmarks, `graft validate --ffi`).
    package func validate(
        _ name: String, value: GraftValue, params: [String] = [], path: NativeCallPath
    ) throws(GraftError) -> ValidationOutcome {
        try validatorRegistry.validate(name: name, value: value, params: params, path: path)
    }

    /// The validator flows call `name` (`luhn` or `luhn@2`), to call many
    /// times without a lookup each time. Throws `validator_not_found`.
    public func validator(_ name: String) throws(GraftError) -> RegisteredValidator {
        try table.validators.resolve(name: name)
    }
}
