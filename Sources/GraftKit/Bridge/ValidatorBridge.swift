import CGraft

/// Runs the Swift validator behind a descriptor. Every descriptor points at
/// the same C function; graft.h passes the descriptor as `self`, and its
/// position in the table says which validator it is.
enum ValidatorBridge {
    typealias Function = @convention(c) (
        UnsafePointer<graft_validator_descriptor_t>?, UnsafePointer<graft_value_t>?,
        UnsafePointer<UnsafePointer<CChar>?>?, UInt32, UnsafePointer<graft_writer_t>?) -> Bool

    static let function: Function = { validate($0, $1, $2, $3, $4) }

    static func validate(_ descriptor: UnsafePointer<graft_validator_descriptor_t>?,
                         _ value: UnsafePointer<graft_value_t>?,
                         _ params: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt32,
                         _ message: UnsafePointer<graft_writer_t>?) -> Bool {
        guard let descriptor, let (registry, index) = DescriptorOwners.owner(of: descriptor) else { return false }
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
