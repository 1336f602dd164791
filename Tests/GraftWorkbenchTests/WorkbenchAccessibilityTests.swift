import Foundation
import GraftDebugger
import GraftHost
import GraftTestSupport
import GraftWebDriver
import Testing

/// axe-core, the accessibility engine browsers' audits use, over each kind of
/// page with the first-party plugins and the checkout flow: no serious or
/// critical issue. The plugins' own HTML (the render frames) is theirs, not
/// the workbench's, and is left out. axe (4.12.1) comes from PyPI
/// (axe-playwright-python, which carries axe.min.js); `Scripts/prerequisites.sh --browser` installs it.
extension WorkbenchTests {
    @Suite("Workbench: accessibility (axe-core)", .timeLimit(.minutes(10)), .enabled(if: Browser.shouldRun, "needs chromium and chromedriver"))
    struct WorkbenchAccessibilityTests {
        static let pages = [
            "#/plugins", "#/component/date_picker@2", "#/component/paywall@1", "#/try", "#/try/validator/luhn",
            "#/try/action/format_currency", "#/log", "#/flow", "#/attach",
        ]

        @Test("every page kind: no serious or critical axe issue", arguments: [false, true])
        func noSeriousIssue(dark: Bool) async throws {
            let axe = try #require(Self.axeSource(), "axe.min.js not found: run Scripts/prerequisites.sh --browser (pip install --no-deps axe-playwright-python)")
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for plugin in ["DatePicker", "Checkout"] {
                try FileManager.default.copyItem(at: try BuildProducts.plugin(plugin), to: folder.appendingPathComponent("lib\(plugin).so"))
            }
            // A running host to attach to, for the Attached host page.
            let remote = GraftHost(
                configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: scratch.file("remote-cache").path),
                logger: quietLogger)
            remote.loadPlugins()
            let sockets = scratch.url.appendingPathComponent("run")
            try FileManager.default.createDirectory(at: sockets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let endpoint = try remote.openDebugEndpoint(socketPath: sockets.appendingPathComponent("d.sock").path, log: ActionLog())
            defer { endpoint.close() }
            let running = try await RunningWorkbench.start(
                plugins: folder, cache: scratch.file("cache"), flow: Fixtures.root.appendingPathComponent("Examples/flows/checkout.json").path,
                attach: endpoint.socketPath, watches: false)
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            try await offPool {
                let browser = try WebDriver(niceness: 10)
                defer { browser.quit() }
                if dark { try browser.prefersColorScheme("dark") }
                try browser.navigate(url)
                try browser.wait(for: "the plugin list", "return document.body.dataset.pluginsShown === '2'")
                // The system's preference reaches the page: dark paper in dark mode, light otherwise.
                #expect(try browser.execute("return getComputedStyle(document.body).backgroundColor") == (dark ? "rgb(20, 26, 23)" : "rgb(246, 248, 247)"))
                for page in Self.pages {
                    _ = try browser.execute("location.hash = arguments[0]", [.string(page)])
                    let view = page.split(separator: "/")[1]
                    try browser.wait(
                        for: "\(page) to settle",
                        "return document.body.dataset.view === '\(view)' && !document.getElementById('view').textContent.startsWith('Loading')")
                    if page.hasPrefix("#/component") {
                        try browser.wait(for: "the render of \(page)", "return !!document.getElementById('render-frame') || !!document.getElementById('error-card')")
                    }
                    if page == "#/flow" { try browser.wait(for: "the flow's screen", "return !!document.querySelector('#flow-screen .flow-instance')") }
                    if page == "#/attach" { try browser.wait(for: "the attached host's plugins", "return document.getElementById('view').textContent.includes('dev.graft.checkout')") }
                    if page == "#/component/paywall@1" { try WorkbenchBrowserTests.saveScreenshot(browser, "paywall\(dark ? "-dark" : "")") }
                    let issues = try Self.seriousIssues(browser, axe: axe)
                    #expect(try browser.execute("return window.axe.version").stringValue == "4.12.1", "the pinned axe-core")
                    #expect(issues.isEmpty, "\(page)\(dark ? " (dark)" : ""): \(issues.joined(separator: "\n"))")
                }
            }
            await running.stop()
        }

        /// axe's serious and critical violations on the page as it is, one line each: the rule, what it asks, and
        /// the first elements that break it.
        static func seriousIssues(_ browser: WebDriver, axe: String) throws -> [String] {
            if try browser.execute("return typeof window.axe") != "object" { _ = try browser.execute(axe + "\nreturn true;") }
            let found = try browser.executeAsync("""
                const done = arguments[arguments.length - 1];
                axe.run({ exclude: [['.render-frame'], ['#render-frame']] }, { iframes: false, resultTypes: ['violations'] })
                  .then(result => done(result.violations
                    .filter(v => v.impact === 'serious' || v.impact === 'critical')
                    .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')})`)))
                  .catch(error => done([`axe failed: ${error}`]));
                """)
            return found.listValue?.compactMap(\.stringValue) ?? ["axe answered \(found)"]
        }

        /// axe.min.js from the axe-playwright-python package, wherever pip put it.
        static func axeSource() -> String? {
            let located = try? runCommand(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["python3", "-c", "import importlib.util; print(importlib.util.find_spec('axe_playwright_python').submodule_search_locations[0])"],
                timeout: .seconds(30))
            guard let folder = located?.stdout.trimmingCharacters(in: .whitespacesAndNewlines), !folder.isEmpty else { return nil }
            return try? String(contentsOfFile: folder + "/axe.min.js", encoding: .utf8)
        }
    }
}
