import Dispatch
import Foundation
import GraftDebugger
import GraftFlows
import GraftHost

/// Runs the flow on its own queue and feeds it events: from a file on a
/// timer, starting the flow again when the events run out or it closes, so
/// the host keeps producing log records; or from standard input.
///
/// `@unchecked Sendable`: the runner (which is not `Sendable`) and the
/// position in the events are only touched on `queue`.
final class FlowDriver: @unchecked Sendable {
    static let defaultFlow = "Examples/flows/checkout.json"

    private let host: GraftHost
    private let flow: FlowDocument
    private let feed: FlowLogFeed
    private let queue = DispatchQueue(label: "graft.example.flow")
    private var runner: FlowRunner?
    private var timer: DispatchSourceTimer?
    private var lines: [String] = []
    private var next = 0

    init(host: GraftHost, flow: FlowDocument, feed: FlowLogFeed) {
        self.host = host
        self.flow = flow
        self.feed = feed
    }

    /// Applies one line of `lines` every `interval`, from the start again
    /// when they run out or the flow closes.
    func play(_ lines: [String], every interval: DispatchTimeInterval) {
        queue.async { [self] in
            self.lines = lines.filter { !$0.allSatisfy(\.isWhitespace) }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: interval)
            timer.setEventHandler { [weak self] in self?.step() }
            self.timer = timer
            timer.resume()
        }
    }

    /// Applies each line typed on standard input; the flow starts again
    /// after it closes.
    func readStandardInput() {
        queue.async { [self] in restart() }
        // A blocking read belongs on its own thread, not on a dispatch queue.
        let thread = Thread { [self] in
            // Line by line, each bounded: a line without end is refused, not held.
            let input = InputLines(standardInput: "stdin")
            do throws(GraftError) {
                while let (_, line) = try input.next() {
                    queue.async { [self] in apply(line) }
                }
            } catch {
                FileHandle.standardError.write(Data("error: \(error.code.rawValue): \(error.message)\n".utf8))
            }
        }
        thread.start()
    }

    private func step() {
        guard let runner, !runner.isClosed, next < lines.count else {
            restart()
            return
        }
        apply(lines[next])
        next += 1
    }

    private func restart() {
        runner = nil  // closes the previous run's instances
        next = 0
        let runner = FlowRunner(host: host, flow: flow, observer: feed)
        self.runner = runner
        do {
            try runner.start()
        } catch {
            say("the flow cannot start: \(error)")
        }
    }

    private func apply(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        if runner?.isClosed ?? true { restart() }
        do {
            try runner?.send(try FlowEvent(json: line))
        } catch {
            say("event not applied: \(error)")
        }
    }
}
