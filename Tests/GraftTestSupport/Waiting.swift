import Foundation

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns
/// whether it held. For state another thread changes (a socket file the
/// endpoint removes, a log a dispatch queue fills): sleeping between checks
/// keeps the two cores free for that thread.
public func eventually(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try condition()
}

/// `eventually` for conditions that are asked asynchronously (an HTTP request,
/// say): every 20 ms until it holds or `timeout` passes.
public func eventually(within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
