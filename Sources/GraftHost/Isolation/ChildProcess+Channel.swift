import CGraftSystem
import Dispatch
import FoundationEssentials
import GraftSupport
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Talking to a child: frames out (with a descriptor), frames in with a
/// deadline, and its output lines, rationed.
extension ChildProcess {
    /// Sends one frame, with `descriptor` attached when given. False when the
    /// child is gone.
    @discardableResult
    func send(_ kind: Wire.Kind, id: UInt32, payload: [UInt8], descriptor: Int32 = -1) -> Bool {
        send(frame: Wire.frame(kind, id: id, payload: payload), descriptor: descriptor)
    }

    /// Sends frames already framed, in one write. False when the child is gone.
    func send(frames: [UInt8]) -> Bool { send(frame: frames, descriptor: -1) }

    /// Sends a frame already framed with `descriptor` attached (-1: none). False when the child is gone.
    func send(frame: [UInt8], descriptor: Int32) -> Bool {
        if let ring { return send(frame, descriptor: descriptor, through: ring) }
        return frame.withUnsafeBytes { graft_send_with_fd(channel, $0.baseAddress, $0.count, descriptor) } == 0
    }

    /// Where what went through the ring ends (the socket cannot tell what its reader took: nil).
    var sentMark: UInt64? { ring?.written }

    func took(through mark: UInt64) -> Bool { ring?.taken(through: mark) ?? true }

    /// The next frame, waiting at most until `deadline`. Lines the child
    /// writes to stdout or stderr meanwhile go to `onOutput`, at most
    /// `outputLimit` bytes per call; the rest is counted and dropped, so a
    /// child that floods its output can neither starve the wait nor grow the
    /// host. `lastFrameEnd` then says where the frame ended in the stream.
    func receive(until deadline: ContinuousClock.Instant, onOutput: (String) -> Void) -> Received {
        var outputBudget = Self.outputLimit
        var droppedOutput = 0
        defer {
            if droppedOutput > 0 { onOutput("(\(droppedOutput) more bytes of output dropped: more than \(Self.outputLimit) in one call)") }
            if let note = lineRate.takeNote() { onOutput(note) }
        }
        if let ring { return receive(from: ring, until: deadline, budget: &outputBudget, dropped: &droppedOutput, onOutput: onOutput) }
        while true {
            if let frame = bufferedFrame() { return frame }
            let now = ContinuousClock.now
            guard now < deadline else { return .timedOut }
            // Both the channel and the output pipe, with the deadline as the
            // timeout (whole milliseconds, rounded up: never shorter than asked).
            let remaining = deadline - now
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
            var descriptors = [
                pollfd(fd: channel, events: Int16(POLLIN), revents: 0), pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                pollfd(fd: exited, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, exited >= 0 ? 3 : 2, Int32(clamping: milliseconds))
            if ready < 0 && errno != EINTR { return .closed }
            if descriptors[1].revents != 0 { drainOnce(onOutput, budget: &outputBudget, dropped: &droppedOutput) }
            if descriptors[0].revents == 0 && exited >= 0 && descriptors[2].revents != 0 {
                // Gone, and nothing of it left to read: closed, whoever holds the socket.
                flushOutput(onOutput)
                return .closed
            }
            guard descriptors[0].revents != 0 else { continue }
            let count = receiveAvailable()
            if count > 0 { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
            flushOutput(onOutput)
            return .closed
        }
    }

    /// The first whole frame of what was received, taken; nil when none is whole yet.
    func bufferedFrame() -> Received? {
        do throws(Wire.Violation) {
            return try frames.next().map { .frame($0.header, $0.payload) }
        } catch {
            return .violation(error.description)
        }
    }

    /// Output kept per `receive`, in bytes.
    static let outputLimit = 256 << 10

    /// Reads what the channel holds, without waiting, counting it for
    /// `streamPosition`. Returns the count, 0 at the end, or -1.
    private func receiveAvailable() -> Int {
        positionLock.lock()
        defer { positionLock.unlock() }
        var count: Int
        if awaitingListener {
            // The hello brings the seccomp listener with its first byte.
            var descriptor: Int32 = -1
            count = graft_receive_with_fd(channel, scratch.baseAddress, scratch.count, &descriptor)
            if descriptor >= 0 {
                if receivedListener < 0 { receivedListener = descriptor } else { close(descriptor) }
            }
        } else {
            // recv, not recvmsg: descriptors a child might send are closed by
            // the kernel, never installed here.
            count = recv(channel, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT))
        }
        if count > 0 {
            frames.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
            consumed += UInt64(count)
        }
        return count
    }

    /// One read of the output pipe (at most `scratch`'s 64 KiB), its whole
    /// lines passed on while `budget` lasts.
    func drainOnce(_ onOutput: (String) -> Void, budget: inout Int, dropped: inout Int) {
        let count = read(output, scratch.baseAddress, scratch.count)
        guard count > 0 else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
        guard budget > 0 else {
            dropped += count
            return
        }
        budget -= count
        pendingOutput.append(contentsOf: bytes)
        var start = 0
        while let newline = pendingOutput[start...].firstIndex(of: 10) {
            let line = String(decoding: pendingOutput[start..<newline], as: UTF8.self)
            start = newline + 1
            if let peak = Self.peakReport(line) {
                reportedPeak = peak
            } else {
                switch lineRate.admit() {
                case .write:
                    if let note = lineRate.takeNote() { onOutput(note) }
                    onOutput(line.escapingControls)
                case .dropAndSay(let note): onOutput(note)
                case .drop: break
                }
            }
        }
        pendingOutput.removeFirst(start)
        // A child that never writes a newline still cannot grow the host.
        if pendingOutput.count > 64 * 1024 { flushOutput(onOutput) }
    }

    func flushOutput(_ onOutput: (String) -> Void) {
        if !pendingOutput.isEmpty { onOutput(String(decoding: pendingOutput, as: UTF8.self).escapingControls) }
        pendingOutput.removeAll()
    }
}
