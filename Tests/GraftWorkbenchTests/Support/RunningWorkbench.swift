import Dispatch
import Foundation
import GraftHost
import GraftWebDriver
import GraftTestSupport
import GraftWorkbench
import Logging
import Testing

let quietLogger: Logger = {
    var logger = Logger(label: "graft.workbench.tests")
    logger.logLevel = .critical
    return logger
}()

/// A workbench serving a host loaded from `folder`, in this process, on a
/// port the kernel picked; every request helper sends the right Host and the
/// token unless told otherwise.
final class RunningWorkbench: Sendable {
    let workbench: Workbench
    let host: GraftHost
    let port: Int
    let token: String

    static func start(
        plugins folder: URL, cache: URL, isolation: Isolation = .perPlugin, flow: String? = nil, attach: String? = nil,
        watches: Bool = true, sandbox: SandboxSettings = SandboxSettings(), signatures: SignaturePolicy = SignaturePolicy(),
        stories: URL? = nil
    ) async throws -> RunningWorkbench {
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), loadsFromCopies: true, cacheFolder: cache.path,
                isolation: isolation, sandbox: sandbox, signatures: signatures),
            logger: quietLogger)
        host.loadPlugins()
        let workbench = try Workbench(
            host: host,
            options: WorkbenchOptions(
                flowPath: flow, attachSocket: attach, watchesPlugins: watches,
                // Never the package's own folder: saved stories go beside the test's cache.
                storiesFolder: (stories ?? cache.appendingPathComponent("stories")).path),
            logger: quietLogger)
        let address = try await workbench.start()
        return RunningWorkbench(workbench: workbench, host: host, port: address.port, token: workbench.options.token.value)
    }

    /// A workbench, not watching, over a `plugins` folder in `scratch` holding the named fixtures (built) and
    /// first-party plugins (copied); its cache in `scratch` too.
    static func start(
        in scratch: borrowing Scratch, fixtures: [String] = [], firstParty: [String] = [], flow: String? = nil
    ) async throws -> RunningWorkbench {
        let folder = scratch.url.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for fixture in fixtures { try Fixtures.build(fixture, into: folder) }
        for plugin in firstParty {
            try FileManager.default.copyItem(at: try BuildProducts.plugin(plugin), to: folder.appendingPathComponent("lib\(plugin).so"))
        }
        return try await start(plugins: folder, cache: scratch.file("cache"), flow: flow, watches: false)
    }

    private init(workbench: Workbench, host: GraftHost, port: Int, token: String) {
        self.workbench = workbench
        self.host = host
        self.port = port
        self.token = token
    }

    func stop() async { await workbench.stop() }

    /// Headless Chromium on this workbench's page, off the cooperative pool, quit after `body`.
    func withBrowser(_ body: @escaping @Sendable (WebDriver, String) throws -> Void) async throws {
        let url = try #require(workbench.url)
        try await offPool {
            let browser = try WebDriver(niceness: 10)
            defer { browser.quit() }
            try body(browser, url)
        }
    }

    var bearer: (String, String) { ("Authorization", "Bearer \(token)") }

    func request(
        _ method: String, _ path: String, json body: GraftValue? = nil, host: String? = nil,
        headers: [(String, String)]? = nil
    ) async throws -> HTTPAnswer {
        var sent = headers ?? [bearer]
        if body != nil { sent.append(("Content-Type", "application/json")) }
        let port = self.port
        let (text, finalHeaders) = (body?.jsonText, sent)
        return try await offPool {
            try HTTPProbe.request(port: port, method: method, path: path, host: host, headers: finalHeaders, body: text)
        }
    }

    /// A request that must succeed: its JSON.
    func json(_ method: String, _ path: String, _ body: GraftValue? = nil) async throws -> GraftValue {
        let answer = try await request(method, path, json: body)
        guard (200..<300).contains(answer.status) else {
            throw HTTPFailure(description: "\(method) \(path) answered \(answer.status): \(answer.body)")
        }
        return try GraftValue(json: answer.body)
    }

    /// The live channel; once accepted, its `hello` is read first, so the
    /// server has the page registered before the test acts.
    func live(headers: [(String, String)]? = nil) async throws -> LiveProbe {
        let port = self.port
        let sent = headers ?? [bearer, ("Origin", "http://127.0.0.1:\(port)")]
        return try await offPool {
            let probe = try LiveProbe(port: port, headers: sent)
            if probe.handshake.status == 101 {
                guard try probe.next()?["type"] == "hello" else { throw HTTPFailure(description: "no hello on the live channel") }
            }
            return probe
        }
    }
}

/// Builds `good_widget` as `count` distinct plugins (ids `test.widget.pN`,
/// components `widget_pN`) with the system `cc`, two at a time and at a low
/// priority (`nice`), so that the other suites running meanwhile keep their
/// timing.
func buildWidgets(_ count: Int, into folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let failures = LockedFailures()
    DispatchQueue.concurrentPerform(iterations: min(count, 2)) { worker in
        for index in stride(from: worker, to: count, by: 2) {
            do {
                let output = folder.appendingPathComponent("libwidget_p\(index).so")
                let partial = folder.appendingPathComponent(".libwidget_p\(index).so.partial")
                let result = try runCommand(
                    URL(fileURLWithPath: "/usr/bin/nice"),
                    ["-n", "15", "cc", "-shared", "-fPIC", "-std=c11", "-Wall", "-I", Fixtures.includeFolder.path,
                     "-DWIDGET_ID=\"test.widget.p\(index)\"", "-DWIDGET_KEY=\"widget_p\(index)\"",
                     Fixtures.source("good_widget").path, "-o", partial.path],
                    timeout: .seconds(120))
                guard result.status == 0 else { throw HTTPFailure(description: "cc failed for widget \(index): \(result.stderr)") }
                try FileManager.default.moveItem(at: partial, to: output)
            } catch {
                failures.add("\(error)")
            }
        }
    }
    if let first = failures.first { throw HTTPFailure(description: first) }
}

final class LockedFailures: @unchecked Sendable {
    // Guarded by `lock`.
    private var all: [String] = []
    private let lock = NSLock()
    func add(_ text: String) { lock.withLock { all.append(text) } }
    var first: String? { lock.withLock { all.first } }
}
