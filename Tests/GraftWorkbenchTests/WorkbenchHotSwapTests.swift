import Foundation
import GraftHost
import GraftWebDriver
import GraftTestSupport
import GraftWorkbench
import Testing

/// Hot swap through the host's real watcher (inotify): a rebuilt plugin
/// re-renders every open session with its inputs kept, pushed on the live
/// channel; a refused build is announced and the old build keeps serving.
extension WorkbenchTests {
    @Suite("Workbench: hot swap", .timeLimit(.minutes(10)))
    struct WorkbenchHotSwapTests {
        /// A workbench watching a folder that holds the widget plugin, and its live channel.
        static func widgetWorkbench(_ scratch: borrowing Scratch) async throws -> (URL, RunningWorkbench, LiveProbe) {
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"))
            do {
                return (folder, running, try await running.live())
            } catch {
                await running.stop()
                throw error
            }
        }

        @Test("a rebuilt plugin re-renders the open session with the same inputs, pushed to the page")
        func rebuiltPluginRerenders() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"))
            defer { Task { await running.stop() } }
            #expect(running.workbench.watchedFolders == [folder.path])
            let live = try await running.live()
            let session = try #require(try await running.json("POST", "/api/sessions", ["component": "widget"])["session"]?.stringValue)
            let inputs: GraftValue = ["title": "Kept", "count": 7, "on": true, "tags": ["k"]]
            _ = try await running.json("POST", "/api/sessions/\(session)/inputs", ["inputs": inputs])

            let ready = ContinuousClock.now
            _ = try await offPool { try Fixtures.build("good_widget", into: folder, defines: ["WIDGET_PREFIX": "\"v2:\""]) }
            let swapped = try await offPool {
                try live.first(within: .seconds(10)) { $0["type"] == "render" && $0["reason"] == "swap" && $0["session"] == .string(session) }
            }
            // Timed in `graft bench workbench`, not here: this only says how long it took.
            print("file ready to swap render pushed: \(ContinuousClock.now - ready)")
            let render = try #require(swapped, "no re-render after the rebuild")
            #expect(render["output"]?.stringValue?.contains("<h1>v2: Kept</h1>") == true)
            #expect(render["output"]?.stringValue?.contains("count=7 on=yes") == true)
            #expect(render["inputs"] == inputs, "the control values are kept")

            // The log hears of the swap from its own observer, which may run after the re-render was pushed.
            let logged = try await eventually(within: .seconds(10)) {
                try await running.json("GET", "/api/log")["records"]?.listValue?.contains { $0["type"] == "swap" } == true
            }
            #expect(logged, "the swap is in the action log")
            await running.stop()
        }

        @Test("a plugin whose file is removed while a session uses it says so in /api/plugins and the sidebar, and goes once the session closes")
        func removedWhileInUse() async throws {
            let scratch = try Scratch()
            let (folder, running, live) = try await Self.widgetWorkbench(scratch)
            defer { Task { await running.stop() } }
            let session = try #require(try await running.json("POST", "/api/sessions", ["component": "widget"])["session"]?.stringValue)
            try FileManager.default.removeItem(at: folder.appendingPathComponent("libgood_widget.so"))
            _ = try await offPool { try live.first(within: .seconds(10)) { $0["type"] == "swap" && $0["outcome"] == "removed" } }
            let plugins = try await running.json("GET", "/api/plugins")["plugins"]?.listValue ?? []
            #expect(plugins.count == 1 && plugins.first?["removed"] == true, "\(plugins)")
            if Browser.shouldRun {
                try await running.withBrowser { browser, url in
                    try browser.navigate(url + "#/plugins")
                    try browser.wait(for: "the removed badge", "return !!document.querySelector('#sidebar .side-removed')")
                    try browser.wait(for: "the removed card", "return document.querySelector('.plugin.removed .meta')?.textContent.includes('file removed') ?? false")
                }
            }
            _ = try await running.request("DELETE", "/api/sessions/\(session)", json: nil)
            let gone = try await eventually(within: .seconds(10)) {
                try await running.json("GET", "/api/plugins")["plugins"]?.listValue?.isEmpty == true
            }
            #expect(gone, "the plugin is forgotten once its last instance closes")
            await running.stop()
        }

        @Test("a refused build is announced with its error, and the old build keeps serving")
        func refusedBuildKeepsOld() async throws {
            let scratch = try Scratch()
            let (folder, running, live) = try await Self.widgetWorkbench(scratch)
            defer { Task { await running.stop() } }
            let session = try #require(try await running.json("POST", "/api/sessions", ["component": "widget"])["session"]?.stringValue)
            let good = try Data(contentsOf: folder.appendingPathComponent("libgood_widget.so"))

            // A "build" whose init fails, written over the widget's file.
            _ = try await offPool { try Fixtures.build("bad_init_false", into: folder, outputName: "libgood_widget.so") }
            let refused = try await offPool { try live.first(within: .seconds(10)) { $0["type"] == "swap" } }
            #expect(refused?["outcome"] == "failed")
            #expect(refused?["error"]?["code"] == "plugin_init_failed")
            #expect(refused?["path"]?.stringValue?.hasSuffix("libgood_widget.so") == true)

            let still = try await running.json("POST", "/api/sessions/\(session)/inputs", ["inputs": ["title": "Old"]])
            #expect(still["output"]?.stringValue?.contains("<h1>widget: Old</h1>") == true, "the old build keeps serving")
            // A refused rebuild is no failure of the plugins: the old build serves.
            #expect(try await running.json("GET", "/api/plugins")["failures"]?.listValue?.isEmpty == true)

            // The good file put back ends the rejection: a swap message that is no failure (the page drops its banner on it).
            let partial = folder.appendingPathComponent(".libgood_widget.so.partial")
            try good.write(to: partial)
            #expect(rename(partial.path, folder.appendingPathComponent("libgood_widget.so").path) == 0)
            let back = try await offPool { try live.first(within: .seconds(10)) { $0["type"] == "swap" } }
            #expect(back?["outcome"] == "swapped" || back?["restored"] == true, "\(String(describing: back))")
            await running.stop()
        }

        @Test("a junk file dropped into a watched folder is listed with the failures by /api/plugins")
        func newJunkFileIsAFailure() async throws {
            let scratch = try Scratch()
            let (folder, running, live) = try await Self.widgetWorkbench(scratch)
            defer { Task { await running.stop() } }
            try Data("not a shared library".utf8).write(to: folder.appendingPathComponent("libjunk.so"))
            let refused = try await offPool { try live.first(within: .seconds(10)) { $0["type"] == "swap" } }
            #expect(refused?["outcome"] == "failed")
            #expect(refused?["oldVersion"] == nil, "no build of it ran before")
            let failures = try await running.json("GET", "/api/plugins")["failures"]?.listValue ?? []
            #expect(failures.map { $0["path"]?.stringValue?.hasSuffix("libjunk.so") } == [true], "\(failures)")
            await running.stop()
        }
    }
}
