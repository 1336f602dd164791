import CGraft

/// Runs the Swift validator behind descriptor `index` for its C thunk.
enum ValidatorBridge {
    static func validate(index: Int, _ value: UnsafePointer<graft_value_t>?,
                         _ params: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt32,
                         _ message: UnsafePointer<graft_writer_t>?) -> Bool {
        guard let registry = PluginImage.current?.registry,
              index < registry.validators.count else { return false }
        let strings = (0..<Int(params == nil ? 0 : count)).map { i in
            params![i].map { String(cString: $0) } ?? ""
        }
        switch registry.validators[index].validate(Value.copying(value) ?? .null, strings) {
        case .valid:
            return true
        case .invalid(let text):
            if let text, let message { _ = CWriter.write(text, to: message) }
            return false
        }
    }
}
