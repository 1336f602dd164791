import GraftHost

extension GraftWarning {
    /// `{"code", "message", "instance"}`, as `graft try --json` prints a warning.
    var workbenchJSON: GraftValue {
        var object: [String: GraftValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let instanceID { object["instance"] = .string(instanceID) }
        return .object(object)
    }
}

extension GraftError {
    /// `{"code", "message"}`: how a failed render or call shows on a page.
    var workbenchJSON: GraftValue {
        .object(["code": .string(code.rawValue), "message": .string(message)])
    }
}
