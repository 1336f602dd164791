import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// One job done on one plugin file in a Graft child of its own, for a tool
/// built on GraftHost (the conformance checker runs each test as one). The
/// tool's request, steps and answer are its own bytes; the framing, the
/// sandbox, the deadline and the reaping are the host's, so no tool speaks
/// the wire protocol itself.
///
/// The host's side starts the child (`graft-child MODE`), sends the request
/// with the file's descriptor, and reads `Event`s until the answer or the
/// end; the child's side is `ChildJob.Service`.
package final class ChildJob {
    private let child: ChildProcess

    /// Starts `executable MODE` sandboxed by `sandbox`, and waits for it to
    /// say hello. `onOutput` receives each line the child writes to stderr.
    package init(
        executable: String, mode: String, environment: [String: String] = [:], sandbox: ChildSandbox.Request?,
        logger: Logger, onOutput: (String) -> Void
    ) throws(GraftError) {
        child = try ChildProcess.startGraftChild(
            executable: executable, arguments: [mode], environment: environment, sandbox: sandbox, logger: logger,
            onOutput: onOutput)
    }

    /// Gives the child its one request and the file; false when it is already gone.
    package func send(_ request: [UInt8], file: PluginFile) -> Bool {
        child.send(.job, id: 1, payload: request, descriptor: file.descriptor)
    }

    package enum Event {
        /// The child says what it is about to do (in the tool's bytes).
        case step([UInt8])
        /// The job's answer: the child is finished and reaped.
        case answer([UInt8])
        /// The child ended without answering: how it ended.
        case died(ChildProcess.Termination)
        /// No answer by the deadline: the child was killed.
        case timedOut
        /// The child broke the protocol (why): it was killed.
        case brokeProtocol(String)
    }

    /// The next thing the child says, waiting until `deadline` at most.
    package func next(until deadline: ContinuousClock.Instant, onOutput: (String) -> Void) -> Event {
        switch child.receive(until: deadline, onOutput: onOutput) {
        case .frame(let header, let payload) where header.kind == .jobStep:
            return .step(payload)
        case .frame(let header, let payload) where header.kind == .jobDone:
            child.finish()
            return .answer(payload)
        case .frame(let header, _):
            child.stop()
            return .brokeProtocol("an unexpected \(header.kind) frame")
        case .violation(let reason):
            child.stop()
            return .brokeProtocol(reason)
        case .closed:
            return .died(child.termination())
        case .timedOut:
            child.stop()
            return .timedOut
        }
    }

    /// How the child ended, once it has (killing it after a grace period).
    package func termination() -> ChildProcess.Termination { child.termination() }

    /// The acts the sandbox refused the child so far.
    package func sandboxDenials() -> [SandboxDenial] { child.sandboxDenials() }
}

extension ChildJob {
    /// The child's side of a job (in `graft-child MODE`): take the request,
    /// say each step, answer once, and end.
    package enum Service {
        /// The request and the plugin file's descriptor, after saying hello;
        /// nil when the host sent nothing usable (the child should `finish`).
        package static func request() -> (request: [UInt8], descriptor: Int32)? {
            guard ChildChannel.sayHello() else { return nil }
            var channel = ChildChannel()
            guard let (header, payload, descriptor) = channel.next() else { return nil }
            guard header.kind == .job, descriptor >= 0 else {
                if descriptor >= 0 { close(descriptor) }
                return nil
            }
            return (payload, descriptor)
        }

        /// Tells the host what comes next, before it is done: if this process
        /// dies or hangs, the host knows where.
        package static func step(_ bytes: [UInt8]) { _ = ChildChannel.send(.jobStep, id: 0, bytes) }

        /// Answers the job and ends the process (see `finish`).
        package static func answer(_ bytes: [UInt8]) -> Never {
            _ = ChildChannel.send(.jobDone, id: 1, bytes)
            finish()
        }

        /// Ends the process with `_exit`: no plugin's deinit or destructor
        /// runs, so none can turn an answer into a crash.
        package static func finish() -> Never { ChildMain.finish() }
    }
}
