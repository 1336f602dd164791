import Dispatch

/// Runs blocking work (plugin calls wait on a child process, a debug client
/// on its socket) on a dispatch queue of its own and awaits it, so that the
/// server's few cooperative threads never wait on a plugin.
struct SerialWork: Sendable {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
