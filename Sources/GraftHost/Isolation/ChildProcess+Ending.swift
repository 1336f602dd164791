import CGraftSystem
import Dispatch
import FoundationEssentials
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How a child ends: asked to leave, killed, reaped, and what it said of its
/// memory before a crash.
extension ChildProcess {
    /// Kills the child (if it still runs) and reaps it; returns how it ended.
    @discardableResult
    package func stop() -> Termination {
        if let reaped { return reaped }
        Glibc.kill(pid, SIGKILL)
        ring?.markGone()
        return reap(blocking: true)!
    }

    /// Asks the child to leave by closing the channel's sending side, waits
    /// up to `grace`, then kills it.
    @discardableResult
    package func finish(grace: Duration = .milliseconds(200)) -> Termination {
        if let reaped { return reaped }
        shutdown(channel, Int32(SHUT_WR))
        ring?.letGo()
        return reap(within: grace, polling: 1000)
    }

    /// How the child ended, once it has: after `receive` says `.closed`, the
    /// child may still be exiting, so this waits up to `grace` before
    /// killing it.
    package func termination(grace: Duration = .seconds(1)) -> Termination {
        reaped ?? reap(within: grace, polling: 500)
    }

    /// Reaps the child once it has exited (looking every `polling` µs), or kills it past `grace`.
    private func reap(within grace: Duration, polling: UInt32) -> Termination {
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            if let termination = reap(blocking: false) { return termination }
            usleep(polling)
        }
        return stop()
    }

    /// The bytes in `graft-child: peak address space N kB`, else nil.
    static func peakReport(_ line: String) -> Int? {
        let prefix = "graft-child: peak address space ", suffix = " kB"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix) else { return nil }
        return Int(line.dropFirst(prefix.count).dropLast(suffix.count)).map { $0 * 1024 }
    }

    /// After the child is gone: its last output, for the crash reporter's line.
    private func readPeakReport() {
        while true {
            let count = read(output, scratch.baseAddress, scratch.count)
            guard count > 0 else { break }
            pendingOutput.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        }
        let text = String(decoding: pendingOutput, as: UTF8.self)
        for line in text.split(separator: "\n") {
            if let peak = Self.peakReport(String(line)) { reportedPeak = peak }
        }
    }

    private func reap(blocking: Bool) -> Termination? {
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let result = wait4(pid, &status, blocking ? 0 : WNOHANG, &usage)
            if result == pid { break }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            reaped = .exited(-1)  // already reaped elsewhere: nothing left to wait for
            return reaped
        }
        readPeakReport()
        peakMemory = reportedPeak ?? 0
        ImageStore.removeFolders(ofProcess: pid)
        if let sandboxWatch { SandboxMonitor.shared.unwatch(sandboxWatch) }
        folder?.remove()
        // WIFEXITED / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7F
        reaped = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
        return reaped
    }

    static func signalName(_ signal: Int32) -> String {
        graft_signal_abbreviation(signal).map { "SIG" + String(cString: $0) } ?? "signal \(signal)"
    }
}
