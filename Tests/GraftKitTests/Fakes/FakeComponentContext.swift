import CGraft
import Glibc
import Synchronization

/// A `graft_component_context_t` that records what the instance does with it.
/// Payloads are read as C values, during the call, into JSON-like text.
final class FakeComponentContext: @unchecked Sendable {
    // Test fake: the C struct is written once in init; records sit behind a Mutex.
    struct Emit: Equatable, CustomStringConvertible {
        var event: String
        var payload: String?  // nil when the payload pointer was NULL
        var description: String { "\(event) \(payload ?? "NULL")" }
    }

    struct Warning: Equatable {
        var code: String
        var message: String
    }

    private struct Records {
        var emits: [Emit] = []
        var warnings: [Warning] = []
        var logs: [String] = []
        var destroyed = false
        var callsAfterDestroy = 0
    }

    let pointer: UnsafeMutablePointer<graft_component_context_t>
    private let records = Mutex(Records())
    private let size: graft_size_t
    /// Microseconds each emit takes, to widen races in tests.
    let emitDelay: UInt32

    var emits: [Emit] { records.withLock { $0.emits } }
    var warnings: [Warning] { records.withLock { $0.warnings } }
    var logs: [String] { records.withLock { $0.logs } }
    var callsAfterDestroy: Int { records.withLock { $0.callsAfterDestroy } }

    init(width: Double = 0, height: Double = 0, emitDelay: UInt32 = 0) {
        size = graft_size_t(width: width, height: height)
        self.emitDelay = emitDelay
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: graft_component_context_t())
        pointer.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        pointer.pointee.emit = { context, event, payload in
            let fake = FakeComponentContext.from(context)
            fake.enter()
            if fake.emitDelay > 0 { usleep(fake.emitDelay) }
            let emit = Emit(event: String(cString: event!), payload: CValueText.json(payload))
            fake.records.withLock { $0.emits.append(emit) }
            fake.enter()  // again on the way out: a destroy that did not wait shows here
        }
        pointer.pointee.log = { context, level, message in
            let fake = FakeComponentContext.from(context)
            fake.enter()
            let line = "\(level) \(String(cString: message!))"
            fake.records.withLock { $0.logs.append(line) }
        }
        pointer.pointee.warn = { context, code, message in
            let fake = FakeComponentContext.from(context)
            fake.enter()
            let warning = Warning(code: String(cString: code!), message: String(cString: message!))
            fake.records.withLock { $0.warnings.append(warning) }
        }
        pointer.pointee.get_container_size = { context in
            let fake = FakeComponentContext.from(context)
            fake.enter()
            return fake.size
        }
    }

    /// What a host does once the instance's `destroy` has returned.
    func markDestroyed() {
        records.withLock { $0.destroyed = true }
    }

    private func enter() {
        records.withLock { if $0.destroyed { $0.callsAfterDestroy += 1 } }
    }

    private static func from(_ context: UnsafePointer<graft_component_context_t>?) -> FakeComponentContext {
        Unmanaged<FakeComponentContext>.fromOpaque(context!.pointee.host_data!).takeUnretainedValue()
    }

    deinit {
        pointer.deallocate()
    }
}
