import Dispatch

/// Wakes one follower. `@unchecked Sendable`: a dispatch source may be
/// signalled from any thread (libdispatch's own guarantee); the struct only
/// holds it.
struct FollowerSignal: @unchecked Sendable {
    let id: Int
    let source: DispatchSourceUserDataAdd

    func wake() { source.add(data: 1) }
}
