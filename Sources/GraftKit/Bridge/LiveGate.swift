#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Guards a host pointer that dies when an instance is destroyed.
///
/// Callers `enter` before using the pointer and `leave` after. `close` refuses
/// new callers and waits until callers on *other* threads have left. A caller
/// on the closing thread itself (the host destroying the instance from inside
/// an `emit` handler) is not waited for: that would deadlock, and the caller
/// only returns through the gate after the host call, never using the pointer
/// again.
final class LiveGate: Sendable {
    private struct State {
        var open = true
        var callers: [UInt] = []  // thread ids, one entry per call in flight
    }

    private let state = Mutex(State())

    func enter() -> Bool {
        let me = Self.currentThread
        return state.withLock { state in
            guard state.open else { return false }
            state.callers.append(me)
            return true
        }
    }

    func leave() {
        let me = Self.currentThread
        state.withLock { state in
            if let index = state.callers.lastIndex(of: me) { state.callers.remove(at: index) }
        }
    }

    func close() {
        let me = Self.currentThread
        state.withLock { $0.open = false }
        while state.withLock({ $0.callers.contains { $0 != me } }) {
            sched_yield()
        }
    }

    private static var currentThread: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }
}
