import CGraftSystem
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// A runner child's frames through its shared-memory ring (`ChildRing`):
/// the same frames, limits and checks as on the socket, read from a
/// private copy of what the child wrote.
extension ChildProcess {
    /// Moves the connection onto a new ring, right after the hello. False
    /// when no ring can be made or the child cannot map it: the socket then
    /// carries on. A child that answers anything else is stopped.
    func startRing(spin: UInt32, onOutput: (String) -> Void) throws(GraftError) -> Bool {
        guard ring == nil, let made = ChildRing(spin: spin) else { return false }
        var payload = WireWriter()
        payload.u32(spin)
        guard send(.ring, id: 0, payload: payload.bytes, descriptor: made.descriptor) else { return false }
        switch receive(until: .now + Self.startDeadline, onOutput: onOutput) {
        case .frame(let header, _) where header.kind == .ringReady:
            positionLock.withLock { ring = made }
            made.watch(exited >= 0 ? [channel, output, exited] : [channel, output])
            return true
        case .frame(let header, _) where header.kind == .failed:
            return false
        default:
            let ended = stop()
            throw GraftError(.scannerUnavailable, "\(executable) did not take its shared-memory ring; it \(ended).", path: executable)
        }
    }

    /// A frame, and the descriptor it needs first on the socket (with one
    /// byte), in one turn: two loads sent at once cannot swap files.
    func send(_ frame: [UInt8], descriptor: Int32, through ring: ChildRing) -> Bool {
        // A write into a dead child's ring succeeds. A child that died before
        // RingWatch marked it gone is found after the write: its end wakes the
        // caller's wait, the request is still in the ring, untaken
        // (`took(through:)`), and the retry policy sends it to a new child.
        ring.put(frame) {
            guard descriptor >= 0 else { return true }
            var byte: UInt8 = 0
            return graft_send_with_fd(channel, &byte, 1, descriptor) == 0
        }
    }

    /// `receive` on the ring: waits on its futex; `RingWatch` wakes it for
    /// the child's output, its end, or bytes on the socket (where a child
    /// with a ring has nothing to say: a protocol violation).
    func receive(
        from ring: ChildRing, until deadline: ContinuousClock.Instant, budget: inout Int, dropped: inout Int,
        onOutput: (String) -> Void
    ) -> Received {
        while true {
            if let frame = bufferedFrame() {
                // What the child wrote to its output before this frame is logged before it, as on the socket
                // (where one poll sees both): the watch may not have woken yet.
                var pipe = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                if poll(&pipe, 1, 0) > 0 { drainOnce(onOutput, budget: &budget, dropped: &dropped) }
                return frame
            }
            let count = take(from: ring)
            if count < 0 { return .violation("its shared-memory ring holds a position that cannot be") }
            if count > 0 { continue }
            let alerts = graft_ring_clear_alerts(ring.alerts, ChildRing.attention)
            if alerts != 0 {
                if let violation = lookAround(budget: &budget, dropped: &dropped, onOutput: onOutput) { return violation }
                if alerts & ChildRing.gone != 0 {
                    // What it wrote just before it went (after the take above) is read first: `gone` stays set.
                    let last = take(from: ring)
                    if last > 0 { continue }
                    if last < 0 { return .violation("its shared-memory ring holds a position that cannot be") }
                    flushOutput(onOutput)
                    return .closed
                }
                ring.rearm()
            }
            let remaining = deadline - .now
            guard remaining > .zero else { return .timedOut }
            let nanoseconds = remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
            switch graft_ring_wait(&ring.ring.pointee.receive, ring.alerts, Self.monotonicNanoseconds() + nanoseconds, ring.spin) {
            case -1: return .violation("its shared-memory ring holds a position that cannot be")
            case -2: return .violation("it woke its host more than 10000 times in a row with nothing in its ring")
            default: continue
            }
        }
    }

    /// What woke the reader besides the ring: output to drain, and the
    /// socket (closed: the child is gone; bytes: a violation).
    private func lookAround(budget: inout Int, dropped: inout Int, onOutput: (String) -> Void) -> Received? {
        var descriptors = [pollfd(fd: channel, events: Int16(POLLIN), revents: 0), pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
        guard poll(&descriptors, 2, 0) > 0 else { return nil }
        if descriptors[1].revents != 0 { drainOnce(onOutput, budget: &budget, dropped: &dropped) }
        guard descriptors[0].revents != 0, let ring else { return nil }
        var byte: UInt8 = 0
        if recv(channel, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0 {
            return .violation("it wrote on its socket while its frames go through the shared-memory ring")
        }
        ring.markGone()
        return nil
    }

    /// Copies what waits in the ring into `frames` (never parsed in place:
    /// the child can rewrite it at any time). The count, 0, or -1 when broken.
    private func take(from ring: ChildRing) -> Int {
        positionLock.lock()
        defer { positionLock.unlock() }
        let count = graft_ring_take(&ring.ring.pointee.receive, scratch.baseAddress, scratch.count)
        if count > 0 {
            frames.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
            consumed += UInt64(count)
        }
        return count
    }

    /// Bytes waiting in the ring (for `streamPosition`, under `positionLock`).
    func ringWaiting(_ ring: ChildRing) -> UInt64 {
        UInt64(max(graft_ring_waiting(&ring.ring.pointee.receive), 0))
    }

    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
