import GraftHost

extension GraftWarning {
    /// `{"code", "message", "instance"}`, as `graft try --json` prints warnings.
    var json: GraftValue {
        var object: [String: GraftValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let instanceID { object["instance"] = .string(instanceID) }
        return .object(object)
    }
}
