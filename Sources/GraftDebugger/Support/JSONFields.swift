import GraftHost

/// Reads typed fields out of a JSON object that arrived from elsewhere (a
/// debug client, a running host), with `invalid_json` errors that name the
/// field. Nothing from the wire is force-unwrapped.
struct JSONFields {
    let object: [String: GraftValue]
    /// What the object is, for messages: "the record", "the request".
    let context: String

    init(_ value: GraftValue, context: String) throws(GraftError) {
        guard let object = value.objectValue else {
            throw GraftError(.invalidJSON, "\(context) is a \(value.type.rawValue), not an object.")
        }
        self.object = object
        self.context = context
    }

    func optional(_ key: String) -> GraftValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(GraftError) -> String {
        guard let text = optional(key)?.stringValue else { throw missing(key, "a string") }
        return text
    }

    func optionalString(_ key: String) throws(GraftError) -> String? {
        guard let value = optional(key) else { return nil }
        guard let text = value.stringValue else { throw missing(key, "a string") }
        return text
    }

    func bool(_ key: String) throws(GraftError) -> Bool {
        guard let flag = optional(key)?.boolValue else { throw missing(key, "true or false") }
        return flag
    }

    func optionalInteger(_ key: String) throws(GraftError) -> Int? {
        guard let value = optional(key) else { return nil }
        guard let number = value.numberValue, number == number.rounded(), abs(number) < 1e15 else {
            throw missing(key, "a whole number")
        }
        return Int(number)
    }

    func strings(_ key: String) throws(GraftError) -> [String] {
        guard let value = optional(key) else { return [] }
        guard let list = value.listValue else { throw missing(key, "a list of strings") }
        var strings: [String] = []
        for item in list {
            guard let text = item.stringValue else { throw missing(key, "a list of strings") }
            strings.append(text)
        }
        return strings
    }

    func object(_ key: String) throws(GraftError) -> [String: GraftValue] {
        guard let value = optional(key) else { return [:] }
        guard let object = value.objectValue else { throw missing(key, "an object") }
        return object
    }

    func warnings(_ key: String) throws(GraftError) -> [GraftWarning] {
        guard let list = optional(key)?.listValue else { return [] }
        var warnings: [GraftWarning] = []
        for item in list {
            let fields = try JSONFields(item, context: "a warning in \(context)")
            let codeText = try fields.string("code")
            let message = try fields.string("message")
            // A code this build does not know (a newer host) keeps its text in the message.
            let code = GraftError.Code(rawValue: codeText)
            warnings.append(GraftWarning(
                code ?? .contractMismatch, code == nil ? "[\(codeText)] \(message)" : message,
                instanceID: try fields.optionalString("instance")))
        }
        return warnings
    }

    private func missing(_ key: String, _ what: String) -> GraftError {
        GraftError(.invalidJSON, "\(context): \"\(key)\" must be \(what).")
    }
}

extension GraftWarning {
    /// `{"code", "message", "instance"}`, the form `graft try --json` prints.
    var debuggerJSON: GraftValue {
        var object: [String: GraftValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let instanceID { object["instance"] = .string(instanceID) }
        return .object(object)
    }
}
