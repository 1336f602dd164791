import Foundation
import GraftHost
import GraftTestSupport
import GraftWebDriver
import GraftWorkbench
import Testing

/// Stories in the workbench (issue 43, item 2): a component's stories are entries under it in the sidebar; a story
/// file's story plays step by step in the Play panel, each result as it comes, passing and failing as `graft test`
/// does; the controls are saved as a story into a story file that `graft test` reads.
extension WorkbenchTests {
    @Suite("Workbench: stories", .timeLimit(.minutes(10)), .enabled(if: Browser.shouldRun, "needs chromium and chromedriver"))
    struct WorkbenchStoryTests {
        @Test("story entries in the sidebar open their story; Play runs a story file's steps one by one, passing and failing; the controls saved to a story file")
        func storiesPlayAndSave() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            let besidePlugin = folder.appendingPathComponent("stories")
            try FileManager.default.createDirectory(at: besidePlugin, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: try BuildProducts.plugin("Checkout"), to: folder.appendingPathComponent("libCheckout.so"))
            // The repository's own paywall stories, and one whose expectation does not hold.
            var file = try String(contentsOf: Fixtures.root.appendingPathComponent("Plugins/Checkout/stories/paywall.stories.json"), encoding: .utf8)
            file = file.replacingOccurrences(of: "  \"stories\": [\n", with: """
                  "stories": [
                    { "name": "wrong", "play": [{ "interact": "purchase" }, { "expectText": "nope" }, { "expectEvent": "dismiss" }] },

                """)
            try file.write(to: besidePlugin.appendingPathComponent("paywall.stories.json"), atomically: true, encoding: .utf8)
            let saved = scratch.url.appendingPathComponent("saved-stories")
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"), watches: false, stories: saved)
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            try await offPool {
                let browser = try WebDriver(width: 1280, height: 800, niceness: 10)
                defer { browser.quit() }
                try browser.navigate(url)
                try browser.wait(for: "the story entries", "return document.querySelectorAll('#sidebar .side-story').length === 7")
                #expect(try browser.execute("return [...document.querySelectorAll('#sidebar .side-story')].map(a => a.dataset.story)")
                        == ["sale", "many_features", "free", "wrong", "buy", "not_now", "retitled"])
                // The filter finds a story by its own name: its component stays listed, with that story alone.
                _ = try browser.execute("const f = document.getElementById('sidebar-filter'); f.value = 'not_n'; f.dispatchEvent(new Event('input'))")
                #expect(try browser.execute("return [...document.querySelectorAll('#sidebar .side-link')].filter(a => a.offsetParent !== null).map(a => a.dataset.story || a.dataset.name)")
                        == ["paywall@1", "not_now"])
                _ = try browser.execute("const f = document.getElementById('sidebar-filter'); f.value = ''; f.dispatchEvent(new Event('input'))")
                #expect(try browser.execute("return document.querySelectorAll('#sidebar .side-story').length === [...document.querySelectorAll('#sidebar .side-story')].filter(a => a.offsetParent !== null).length") == true)

                // An entry opens its story: the file's inputs render, and the entry is the current one.
                try browser.click("#sidebar .side-story[data-story=buy]")
                try browser.wait(for: "the story", "return document.getElementById('story').value === 'file:buy' && (document.getElementById('render-frame') || {}).srcdoc?.includes('Graft Team') === true")
                try browser.wait(for: "the entry marked", "return document.querySelector('#sidebar .side-story[aria-current=true]')?.dataset.story === 'buy'")
                #expect(try browser.execute("return [...document.querySelectorAll('#play-steps .play-step code')].map(c => c.textContent)")
                        == [#"expect text "Graft Team 19.50""#, "interact purchase", #"expect event purchase {"price":19.5,"title":"Graft Team"}"#, "expect no warning"])

                // Play: each step passes, one after another; the purchase reaches the action log.
                try browser.click("#play-button")
                try browser.wait(for: "the play", "return document.body.dataset.playDone !== undefined")
                #expect(try browser.execute("return document.body.dataset.playDone") == "passed")
                #expect(try browser.execute("return [...document.querySelectorAll('#play-steps .play-step')].map(s => s.dataset.state)")
                        == ["passed", "passed", "passed", "passed"])
                #expect(try browser.execute("return document.getElementById('play-summary').textContent") == "4 of 4 steps passed.")
                try browser.wait(for: "the purchase in the log", "return document.querySelectorAll('#records .record[data-event=purchase]').length >= 1")

                // A story whose expectations fail says which, and why, and plays every step.
                _ = try browser.execute("const s = document.getElementById('story'); s.value = 'file:wrong'; s.dispatchEvent(new Event('change'))")
                try browser.click("#play-button")
                try browser.wait(for: "the failing play", "return document.body.dataset.playDone === 'failed'")
                #expect(try browser.execute("return [...document.querySelectorAll('#play-steps .play-step')].map(s => s.dataset.state)")
                        == ["passed", "failed", "failed"])
                let failure = try browser.execute("return document.querySelectorAll('#play-steps .play-failure')[1].textContent").stringValue ?? ""
                #expect(failure.hasPrefix(#"the render's text does not hold "nope"; it reads "Graft Pro"#), "\(failure)")
                #expect(try browser.execute("return document.querySelectorAll('#play-steps .play-failure')[2].textContent")
                        == #"no dismiss event; events so far: purchase {"price":9.99,"title":"Graft Pro"}."#)
                #expect(try browser.execute("return document.getElementById('play-summary').textContent") == "1 of 3 steps passed: see the failures above.")

                // The controls and the size, saved as a story into the stories folder.
                try browser.type("Saved title", into: "#input-title")
                try browser.wait(for: "the edit", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('Saved title') === true")
                try browser.type("kept_one", into: "#story-name")
                try browser.click("#story-save-file")
                try browser.wait(for: "the saved story", "return document.getElementById('interaction-note').textContent.startsWith('story “kept_one” saved in')")
                #expect(try browser.execute("return document.getElementById('story').value") == "file:kept_one")
                try browser.wait(for: "its sidebar entry", "return !!document.querySelector('#sidebar .side-story[data-story=kept_one]')")
            }
            let written = try String(contentsOf: saved.appendingPathComponent("paywall.stories.json"), encoding: .utf8)
            #expect(written.contains(#""schema" : "graft.story-file/1""#), "\(written)")
            #expect(written.contains(#""name" : "kept_one""#) && written.contains(#""title" : "Saved title""#), "\(written)")
            // What the page saved, graft test runs.
            let tested = try graft(
                ["test", "--only-plugin-path", "--plugin-path", folder.path, "--stories", saved.path, "--snapshots", scratch.file("snapshots").path, "dev.graft.checkout"],
                cache: scratch.file("cli-cache"))
            #expect(tested.stdout.contains("✔ dev.graft.checkout paywall@1 › kept_one  (\(saved.path)/paywall.stories.json)"), "\(tested.stdout)")
            await running.stop()
        }
            @Test("the Accessibility section runs axe over the component's own render: the paywall is clean; a render with an unnamed image and button lists both, critical; the page's policy lets only its nonce's scripts run inline")
        func accessibilityPanel() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: try BuildProducts.plugin("Checkout"), to: folder.appendingPathComponent("libCheckout.so"))
            try Fixtures.build("good_widget", into: folder, defines: ["WIDGET_INACCESSIBLE": "1"])
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"), watches: false)
            defer { Task { await running.stop() } }
            // The page's answer allows inline scripts by a nonce of its own, which its script tag carries.
            let page = try await running.request("GET", "/")
            let policy = try #require(page.header("Content-Security-Policy"))
            let nonce = try #require(policy.components(separatedBy: "'nonce-").dropFirst().first?.components(separatedBy: "'").first)
            #expect(nonce.count >= 16 && page.body.contains("nonce=\"\(nonce)\""), "\(policy)")
            #expect(try await running.request("GET", "/").header("Content-Security-Policy") != policy, "a nonce per answer")
            try await running.withBrowser { browser, url in
                try browser.navigate(url + "#/component/paywall%401")
                try browser.wait(for: "the paywall's check", within: .seconds(30), "return document.body.dataset.a11yChecked !== undefined")
                let summary = try browser.execute("return document.getElementById('a11y-summary').textContent")
                #expect(try browser.execute("return document.body.dataset.a11yChecked") == "clean", "\(summary)")
                #expect(try browser.execute("return document.getElementById('a11y-summary').textContent").stringValue?.hasPrefix("No serious or critical issue") == true)
                try browser.navigate(url + "#/component/widget%401")
                try browser.wait(for: "the widget's check", within: .seconds(30), "return document.body.dataset.a11yChecked === 'issues'")
                #expect(try browser.execute("return [...document.querySelectorAll('#a11y-results .a11y-result')].filter(r => r.dataset.impact === 'critical').map(r => r.dataset.rule).sort()")
                        == ["button-name", "image-alt"])
                #expect(try browser.execute("return document.getElementById('a11y-summary').textContent") == "2 serious or critical issues in this render (graft test --a11y fails on these).")
                #expect(try browser.execute("return document.querySelectorAll('.a11y-frame').length") == 0, "the check's frame is gone")
            }
            await running.stop()
        }
    }
}
