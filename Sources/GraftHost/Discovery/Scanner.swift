import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftSupport
import Logging

/// The host's side of the scanner child: sends it plugin files one at a time
/// (with their open descriptors, so the child loads exactly the file the host
/// checked) and collects what each declares. One child serves a whole batch.
/// A file that kills the child, or keeps it past the deadline, comes back as
/// `.crashed` with the signal or status and the stage it reached; the child is
/// started again for the next file. The host never runs a plugin's code here.
final class Scanner: @unchecked Sendable {
    let executable: String
    let deadline: Duration
    /// The sandbox of every scanner child (nothing granted: no plugin is
    /// known yet), or nil when the host runs unsandboxed.
    let sandbox: ChildSandbox.Request?
    let logger: Logger
    /// Told of the acts the sandbox refused while a file was scanned; set once by the host.
    private let denialHandler = Locked<(@Sendable (PluginFile, ScanOutcome, [SandboxDenial]) -> Void)?>(nil)
    // Everything below is guarded by `lock`: one scan at a time.
    private let lock = Lock()
    private var child: ChildProcess?
    /// Whether `child` has said hello (`startAhead` does not wait for it).
    private var greeted = false
    private var nextID: UInt32 = 0
    /// The last stage byte read from the child (the pipe is read after each
    /// batch, so that it never fills; a crash reads what is left).
    private var lastProgress: UInt8?
    /// How many files the running child has answered: when it dies with others
    /// mapped in it before, one of those may have brought it down.
    private var answered = 0

    init(executable: String, deadline: Duration, sandbox: ChildSandbox.Request?, logger: Logger) {
        self.executable = executable
        self.deadline = deadline
        self.sandbox = sandbox
        self.logger = logger
    }

    /// Another scanner like this one (a cold scan's second child), told of
    /// refused acts the same way.
    func sibling() -> Scanner {
        let other = Scanner(executable: executable, deadline: deadline, sandbox: sandbox, logger: logger)
        if let handler = denialHandler.withLock({ $0 }) { other.onDenials(handler) }
        return other
    }

    func onDenials(_ handler: @escaping @Sendable (PluginFile, ScanOutcome, [SandboxDenial]) -> Void) {
        denialHandler.withLock { $0 = handler }
    }

    deinit {
        child?.finish()
    }

    /// The host's descriptors for the running child (for tests).
    var childDescriptors: [Int32] { lock.withLock { child?.descriptors ?? [] } }

    /// The running child's process id, if one runs (for tests).
    var childPID: pid_t? { lock.withLock { child?.pid } }

    /// Starts the child now, without waiting for its hello, so that it starts
    /// while the caller opens and checks the files it will send.
    func startAhead() {
        lock.withLock { if child == nil { try? start() } }
    }

    /// Starts a child, without waiting for its hello. Called with `lock` held.
    private func start() throws(GraftError) {
        child = try ChildProcess(
            executable: executable, arguments: ["scan"], progress: true, sandbox: sandbox, logger: logger)
        greeted = false
        lastProgress = nil
        answered = 0
    }

    /// Ends the child without waiting for it to exit (see
    /// `ChildProcess.finishInBackground`); the next scan starts another.
    func retire() {
        lock.withLock { child.take()?.finishInBackground() }
    }

    /// Ends the child and waits until it is reaped (a host shutting down).
    func finish() {
        lock.withLock { _ = child.take()?.finish() }
    }

    /// Scans `file`; nil when no scanner could be started (the caller then
    /// decides whether to load in process). With `mapping: .copy` the child
    /// maps a private copy: a file that may be rewritten in place must never
    /// be mapped itself, in any process.
    func scan(_ file: PluginFile, mapping: PluginLoader.ImageSource = .descriptorName) -> ScanOutcome? {
        scan([file], mapping: mapping)[0]
    }

    /// Files sent ahead of the answer being waited for: the child goes from
    /// one file to the next without waiting for the host to read each answer.
    static let window = 32

    /// Scans `files` in order, one outcome each (nil for those left when no
    /// scanner could be started). Up to `window` files travel at once; when
    /// one kills the child, the files sent after it go again to a new one.
    /// A file blamed for the death of a child that had mapped other files
    /// first (a crash, a timeout, a broken frame) is scanned again alone, on
    /// a new child, and only that verdict counts: a plugin whose thread kills
    /// or stops its scanner later cannot get the next plugin quarantined.
    /// `meanwhile` is called before each wait for an answer, with the child
    /// at work: the caller's own work on the files goes there.
    func scan(
        _ files: [PluginFile], mapping: PluginLoader.ImageSource = .descriptorName, meanwhile: () -> Void = {}
    ) -> [ScanOutcome?] {
        lock.lock()
        defer { lock.unlock() }
        var outcomes = [ScanOutcome?](repeating: nil, count: files.count)
        var next = 0
        var inFlight: [(id: UInt32, index: Int)] = []
        var restarts = 0
        var alone: Int?
        while next < files.count || !inFlight.isEmpty {
            guard let child = running() else { return outcomes }
            while next < files.count, inFlight.count < (alone == nil ? Self.window : 1) {
                let file = files[next]
                nextID &+= 1
                let payload = ScanRequest(path: file.path, realPath: file.realPath, copy: mapping == .copy).bytes
                guard child.send(.scan, id: nextID, payload: payload, descriptor: file.descriptor) else { break }
                inFlight.append((nextID, next))
                next += 1
            }
            guard let (id, index) = inFlight.first else {
                // Nothing could be sent: the child left between two batches
                // (idle too long, killed by someone). Another one, once.
                self.child = nil
                child.stop()
                restarts += 1
                if restarts > 1 { return outcomes }
                continue
            }
            inFlight.removeFirst()
            meanwhile()
            let outcome = answer(to: id, for: files[index], from: child)
            if self.child == nil, answered > 0, alone != index, case .crashed = outcome {
                // Others ran in that child first, and any of them may have
                // crashed, stopped or spoken for it: this file again, alone.
                alone = index
                next = index
                inFlight.removeAll()
                continue
            }
            if alone == index { alone = nil }
            outcomes[index] = outcome
            answered += 1
            if self.child == nil, let first = inFlight.first {
                // The child died on this file: those sent after it go again.
                next = first.index
                inFlight.removeAll()
            }
        }
        if let child, let latest = child.latestProgress() { lastProgress = latest }
        return outcomes
    }

    /// The running child, started if needed; nil if it cannot start.
    private func running() -> ChildProcess? {
        do throws(GraftError) {
            if child == nil { try start() }
            if !greeted {
                try child!.awaitHello(onOutput: { self.logger.notice("scanner: \($0)") })
                greeted = true
            }
            return child
        } catch {
            child = nil
            logger.error("\(error)")
            startFailureValue.withLock { $0 = error }
            return nil
        }
    }

    /// Why the last child could not start, if it could not.
    var startFailure: GraftError? { startFailureValue.withLock { $0 } }
    private let startFailureValue = Locked<GraftError?>(nil)

    /// The file's outcome; the acts the sandbox refused while it was scanned
    /// (those before its answer ended, or all of them when the child died
    /// on it) go to the host with it.
    private func answer(to id: UInt32, for file: PluginFile, from child: ChildProcess) -> ScanOutcome {
        let outcome = outcome(of: id, for: file, from: child)
        let denials = self.child === child ? child.sandboxDenials(before: child.lastFrameEnd) : child.sandboxDenials()
        if !denials.isEmpty, let handler = denialHandler.withLock({ $0 }) { handler(file, outcome, denials) }
        return outcome
    }

    private func outcome(of id: UInt32, for file: PluginFile, from child: ChildProcess) -> ScanOutcome {
        var stage = PluginLoader.Stage.checks
        let until = ContinuousClock.now + deadline
        let output = { (line: String) in self.logger.notice("\(line)", metadata: ["plugin": "\(file.path)"]) }
        while true {
            switch child.receive(until: until, onOutput: output) {
            case .frame(let header, let payload) where header.id == id:
                var reader = WireReader(payload)
                switch header.kind {
                case .described:
                    guard let info = try? reader.plugin(path: file.path) else {
                        return abandon(child, file, "sent a description that does not decode")
                    }
                    let problems = info.ruleProblems
                    guard problems.isEmpty else {
                        return abandon(child, file, "sent a description that breaks graft.h's rules (\(problems.joined(separator: "; ")))")
                    }
                    return .described(info)
                case .refused:
                    let errors = try? reader.list { (reader) throws(Wire.Violation) in try reader.childError(path: file.path) }
                    if let errors, !errors.isEmpty { return .refused(errors) }
                    return abandon(child, file, "sent a refusal that does not decode")
                default:
                    return abandon(child, file, "sent an unexpected \(header.kind) frame")
                }
            case .frame(let header, _):
                return abandon(child, file, "answered request \(header.id) while \(id) was asked")
            case .violation(let reason):
                return abandon(child, file, "broke the protocol (\(reason))")
            case let ending:  // .closed or .timedOut
                self.child = nil
                if let raw = child.latestProgress() ?? lastProgress, let reached = PluginLoader.Stage(rawValue: raw) { stage = reached }
                lastProgress = nil
                if case .closed = ending {
                    return .crashed(GraftError(
                        .pluginCrashed,
                        "\(file.path) crashed the scanner: it \(child.termination()) \(stage). It is never loaded in process; `graft check --no-scanner \(file.path)` under gdb or valgrind shows where.",
                        path: file.path, symbol: stage.symbol))
                }
                child.stop()
                return .crashed(GraftError(
                    .pluginTimeout,
                    "\(file.path) did not finish loading within \(deadline) (it was still \(stage)); the scanner was killed. It is never loaded in process.",
                    path: file.path, symbol: stage.symbol))
            }
        }
    }

    private func abandon(_ child: ChildProcess, _ file: PluginFile, _ reason: String) -> ScanOutcome {
        self.child = nil
        child.stop()
        return .crashed(GraftError(
            .pluginCrashed, "\(file.path): the scanner \(reason) while loading it; it is never loaded in process.",
            path: file.path))
    }
}

extension PluginLoader.Stage {
    /// The symbol a crash at this stage points to, for `GraftError.symbol`.
    var symbol: String? {
        switch self {
        case .constructors: "constructor"
        case .entry: "graft_entry"
        case .initialize: "init"
        case .describe: "get_factory"
        default: nil
        }
    }
}

/// Both ends of a scan: the request (the file's descriptor travels with it)
/// and the child's answers, `described` or `refused`; the host reads them in
/// `Scanner.outcome(of:for:from:)`, the child writes them here.
struct ScanRequest {
    var path: String
    var realPath: String
    /// Map a private copy (a file that may be rewritten in place).
    var copy: Bool

    var bytes: [UInt8] {
        var writer = WireWriter()
        writer.string(path)
        writer.string(realPath)
        writer.bool(copy)
        return writer.bytes
    }

    /// The child's answer for a file it loaded.
    static func described(_ info: PluginDescription) -> (Wire.Kind, [UInt8]) {
        var writer = WireWriter()
        writer.plugin(info)
        return (.described, writer.bytes)
    }

    /// The child's answer for a file it refused.
    static func refused(_ errors: [GraftError]) -> (Wire.Kind, [UInt8]) {
        var writer = WireWriter()
        writer.list(errors) { $0.error($1) }
        return (.refused, writer.bytes)
    }
}

extension ScanRequest {
    /// The request in `payload`, or nil when it does not decode.
    init?(_ payload: [UInt8]) {
        var reader = WireReader(payload)
        guard let path = try? reader.string(), let realPath = try? reader.string(), let copy = try? reader.bool() else { return nil }
        self.init(path: path, realPath: realPath, copy: copy)
    }
}
