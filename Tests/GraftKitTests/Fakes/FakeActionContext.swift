import CGraft

/// A `graft_action_context_t` that records variables, results and errors.
final class FakeActionContext {
    let pointer: UnsafeMutablePointer<graft_action_context_t>
    /// "name=json", in call order.
    private(set) var variables: [String] = []
    private(set) var results: [String] = []
    private(set) var errors: [String] = []
    private(set) var logs: [String] = []

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: graft_action_context_t())
        pointer.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        pointer.pointee.set_variable = { context, name, value in
            FakeActionContext.from(context).variables.append(
                "\(String(cString: name!))=\(CValueText.json(value) ?? "NULL")")
        }
        pointer.pointee.set_result = { context, value in
            FakeActionContext.from(context).results.append(CValueText.json(value) ?? "NULL")
        }
        pointer.pointee.set_error = { context, message in
            FakeActionContext.from(context).errors.append(String(cString: message!))
        }
        pointer.pointee.log = { context, level, message in
            FakeActionContext.from(context).logs.append("\(level) \(String(cString: message!))")
        }
    }

    private static func from(_ context: UnsafePointer<graft_action_context_t>?) -> FakeActionContext {
        Unmanaged<FakeActionContext>.fromOpaque(context!.pointee.host_data!).takeUnretainedValue()
    }

    deinit {
        pointer.deallocate()
    }
}
