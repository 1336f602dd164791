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
