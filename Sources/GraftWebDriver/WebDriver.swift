import FoundationEssentials
import GraftHost
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Where Debian's chromium and chromium-driver are, and whether browser
/// tests and `graft bench workbench` run: always under CI (`CI=true`: a
/// missing browser fails them), elsewhere only when both are installed.
public enum Browser {
    public static let chromium = locate(environment: "CHROMIUM", names: ["chromium", "chromium-browser", "google-chrome"])
    public static let driver = locate(environment: "CHROMEDRIVER", names: ["chromedriver"])

    public static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    public static var shouldRun: Bool {
        if inCI || (chromium != nil && driver != nil) { return true }
        writeToStandardError(
            "note: browser checks are skipped: chromium and chromedriver are not installed (apt-get install -y chromium chromium-driver; .ci/run does).\n")
        return false
    }

    private static func locate(environment: String, names: [String]) -> String? {
        if let given = ProcessInfo.processInfo.environment[environment], FileManager.default.isExecutableFile(atPath: given) {
            return given
        }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in names {
            for folder in folders + ["/usr/bin", "/usr/lib/chromium"] {
                let path = "\(folder)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        return nil
    }
}

/// A W3C WebDriver client for chromedriver (HTTP + JSON), driving headless
/// Chromium. `start()` spawns chromedriver and opens a session; `quit()`
/// ends the session (chromedriver quits Chromium) and reaps chromedriver.
/// Every wait polls with a deadline.
/// `@unchecked Sendable`: a test drives it from one thread at a time.
public final class WebDriver: @unchecked Sendable {
    private let process: SpawnedProcess
    private let port: Int
    private var session: String?
    private let profile: URL

    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// - Parameter niceness: when set, chromedriver and the browser it starts
    ///   run at that `nice` level, so that tests sharing the machine keep their
    ///   timing (a benchmark leaves it nil).
    /// - Parameter browserArguments: more of Chromium's switches (`Axe.offlineArguments`).
    public init(width: Int = 1400, height: Int = 1000, niceness: Int? = nil, browserArguments: [String] = []) throws {
        guard let driver = Browser.driver, let chromium = Browser.chromium else {
            throw Failure(description: "chromium and chromedriver are required (apt-get install -y chromium chromium-driver)")
        }
        port = try HTTPProbe.freePort()
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("graft-chromium-\(UUID().uuidString)")
        let arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        if let niceness, FileManager.default.isExecutableFile(atPath: "/usr/bin/nice") {
            process = try SpawnedProcess("/usr/bin/nice", ["-n", "\(niceness)", driver] + arguments)
        } else {
            process = try SpawnedProcess(driver, arguments)
        }
        do {
            try waitUntilReady()
            let answer = try call("POST", "/session", [
                "capabilities": ["alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": .string(chromium),
                        "args": .list([
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-breakpad",
                            "--disable-extensions", .string("--window-size=\(width),\(height)"), .string("--user-data-dir=\(profile.path)"),
                        ] + browserArguments.map { .string($0) }),
                    ],
                ]],
            ])
            guard let id = answer["value"]?["sessionId"]?.stringValue else { throw Failure(description: "no session: \(answer.jsonText)") }
            session = id
        } catch {
            quit()
            throw error
        }
    }

    deinit { quit() }

    private func waitUntilReady() throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if !process.isRunning { throw Failure(description: "chromedriver exited with status \(process.exitStatus ?? -1)") }
            if let status = try? HTTPProbe.request(port: port, path: "/status", timeout: .seconds(2)), status.status == 200,
                (try? GraftValue(json: status.body))?["value"]?["ready"] == true
            {
                return
            }
            usleep(50_000)
        }
        throw Failure(description: "chromedriver did not answer on port \(port) within 20 s")
    }

    /// Ends the session and chromedriver, whatever state they are in.
    public func quit() {
        if let session {
            _ = try? HTTPProbe.request(port: port, method: "DELETE", path: "/session/\(session)", timeout: .seconds(10))
            self.session = nil
        }
        process.stop()
        // A browser whose session never reached us (or whose driver died)
        // outlives chromedriver: its processes carry this run's profile.
        SpawnedProcess.killAll(withArgument: "--user-data-dir=\(profile.path)")
        try? FileManager.default.removeItem(at: profile)
    }

    // MARK: Commands

    @discardableResult
    public func call(_ method: String, _ path: String, _ body: GraftValue? = nil) throws -> GraftValue {
        let answer = try HTTPProbe.request(
            port: port, method: method, path: path, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: body?.jsonText ?? (method == "POST" ? "{}" : nil), timeout: .seconds(60))
        let value = try GraftValue(json: answer.body)
        if let error = value["value"]?["error"]?.stringValue {
            throw Failure(description: "\(method) \(path): \(error): \(value["value"]?["message"]?.stringValue ?? "")")
        }
        return value
    }

    @discardableResult
    private func command(_ method: String, _ path: String, _ body: GraftValue? = nil) throws -> GraftValue {
        guard let session else { throw Failure(description: "no WebDriver session") }
        return try call(method, "/session/\(session)\(path)", body)["value"] ?? .null
    }

    public func navigate(_ url: String) throws { try command("POST", "/url", ["url": .string(url)]) }

    /// Runs `script` (a function body) in the page and returns what it returns.
    @discardableResult
    public func execute(_ script: String, _ arguments: [GraftValue] = []) throws -> GraftValue {
        try command("POST", "/execute/sync", ["script": .string(script), "args": .list(arguments)])
    }

    /// Runs `script` asynchronously: it calls its last argument with the result.
    @discardableResult
    public func executeAsync(_ script: String, _ arguments: [GraftValue] = []) throws -> GraftValue {
        try command("POST", "/execute/async", ["script": .string(script), "args": .list(arguments)])
    }

    /// Polls `condition` (a script returning a boolean) until it holds.
    public func wait(for what: String, within timeout: Duration = .seconds(15), _ condition: String) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? execute(condition)) == true { return }
            usleep(25_000)
        }
        throw Failure(description: "timed out after \(timeout) waiting for \(what): \(condition)")
    }

    public func element(_ css: String) throws -> String {
        let found = try command("POST", "/element", ["using": "css selector", "value": .string(css)])
        guard let id = found[Self.elementKey]?.stringValue else { throw Failure(description: "no element \(css)") }
        return id
    }

    public func click(_ css: String) throws { try command("POST", "/element/\(try element(css))/click") }

    /// Replaces an input's text as a person would: clear it, then type.
    public func type(_ text: String, into css: String) throws {
        let id = try element(css)
        try command("POST", "/element/\(id)/clear")
        try command("POST", "/element/\(id)/value", ["text": .string(text)])
    }

    /// Presses keys on whatever has focus, as a keyboard does (WebDriver's actions): each chord in turn, its keys
    /// held down in order and let go in reverse. Keys other than characters are WebDriver's code points
    /// (`Key.alt`, `Key.down`…).
    public func press(_ chords: String...) throws {
        var steps: [GraftValue] = []
        for chord in chords {
            let keys = chord.map { GraftValue.string(String($0)) }
            steps += keys.map { .object(["type": .string("keyDown"), "value": $0]) }
            steps += keys.reversed().map { .object(["type": .string("keyUp"), "value": $0]) }
        }
        try command("POST", "/actions", ["actions": .list([.object(["type": .string("key"), "id": .string("keyboard"), "actions": .list(steps)])])])
        try command("DELETE", "/actions")
    }

    /// WebDriver's code points for keys that are not characters.
    public enum Key {
        public static let tab = "\u{E004}", enter = "\u{E007}", escape = "\u{E00C}", alt = "\u{E00A}"
        public static let up = "\u{E013}", down = "\u{E015}"
    }

    /// Makes the page see `prefers-color-scheme: dark` (or light), as a system setting would (Chromium's DevTools
    /// protocol, through chromedriver).
    public func prefersColorScheme(_ scheme: String) throws {
        try command("POST", "/goog/cdp/execute", [
            "cmd": "Emulation.setEmulatedMedia",
            "params": ["features": .list([["name": "prefers-color-scheme", "value": .string(scheme)]])],
        ])
    }

    /// Resizes the window (the page's viewport follows).
    public func resize(width: Int, height: Int) throws {
        try command("POST", "/window/rect", ["width": .number(Double(width)), "height": .number(Double(height))])
    }

    public func screenshot() throws -> Data {
        guard let text = try command("GET", "/screenshot").stringValue, let data = Data(base64Encoded: text) else {
            throw Failure(description: "no screenshot")
        }
        return data
    }
}
