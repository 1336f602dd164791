import Foundation
@testable import GraftHost
import GraftMinisign
import GraftWebDriver
import GraftTestSupport
import GraftWorkbench
import Testing

/// The workbench in a real browser: headless Chromium driven through
/// chromedriver's WebDriver protocol, as a tester would use the page. Under
/// CI these always run; elsewhere they are skipped, saying why, when Debian's
/// chromium and chromium-driver are not installed.
extension WorkbenchTests {
    @Suite("Workbench: in Chromium", .timeLimit(.minutes(10)), .enabled(if: Browser.shouldRun, "needs chromium and chromedriver"))
    struct WorkbenchBrowserTests {
        /// Where screenshots go: a folder a person can open after the run.
        static let screenshots: URL = {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graft-workbench-screenshots")
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return folder
        }()

        static func saveScreenshot(_ browser: WebDriver, _ name: String) throws {
            let data = try browser.screenshot()
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
            let file = screenshots.appendingPathComponent("\(name).png")
            try data.write(to: file)
            print("screenshot: \(file.path)")
        }

        @Test("the Plugins page lists 200 plugins and the failed one with its code")
        func twoHundredPlugins() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try await offPool { try buildWidgets(200, into: folder) }
            try Fixtures.build("bad_init_false", into: folder)
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"), watches: false)
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            try await offPool {
                let browser = try WebDriver(niceness: 10)
                defer { browser.quit() }
                try browser.navigate(url)
                try browser.wait(for: "the plugin list", "return document.body.dataset.pluginsShown === '200'")
                #expect(try browser.execute("return document.querySelectorAll('#plugin-list .plugin').length") == 200)
                #expect(try browser.execute("return location.search") == "", "the token left the address bar for a cookie")
                #expect(try browser.execute("return document.querySelector('#plugin-summary').textContent") == "200 plugins loaded, 1 failed")
                let failure = try browser.execute("return document.querySelector('#failures .failure').textContent")
                #expect(failure.stringValue?.contains("plugin_init_failed") == true)
                #expect(failure.stringValue?.contains("libbad_init_false.so") == true)
                #expect(try browser.execute("return document.querySelectorAll('a.component-link').length") == 200)
                // A filter that matches nothing says so (the page was blank), and clearing it brings every card back.
                try browser.type("no-such-plugin", into: ".filter")
                try browser.wait(for: "the no-match note", "return !document.querySelector('.no-match').hidden")
                #expect(try browser.execute("return document.querySelector('.no-match').textContent") == "No plugin matches “no-such-plugin”.")
                #expect(try browser.execute("return document.querySelectorAll('#plugin-list .plugin:not([hidden])').length") == 0)
                _ = try browser.execute("const f = document.querySelector('.filter'); f.value = ''; f.dispatchEvent(new Event('input'))")
                #expect(try browser.execute("return document.querySelector('.no-match').hidden") == true)
                #expect(try browser.execute("return document.querySelectorAll('#plugin-list .plugin:not([hidden])').length") == 200)
                try browser.wait(for: "the live channel", "return window.graftWorkbench.socketOpen === true")
                try Self.saveScreenshot(browser, "plugins-200")
            }
            await running.stop()
        }

        @Test("changing a control re-renders; clicking an interaction shows an action-log entry; a crash is an error card")
        func componentPage() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            try Fixtures.build("bad_runtime", into: folder, defines: ["FAULT_IN": "\"render\""])
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"), watches: false)
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            try await offPool {
                let browser = try WebDriver(niceness: 10)
                defer { browser.quit() }
                try browser.navigate(url)
                try browser.wait(for: "the plugin list", "return document.body.dataset.pluginsShown === '2'")
                try browser.click("a.component-link[href='#/component/widget%401']")
                try browser.wait(for: "the first render", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('widget: Hello') === true")
                #expect(try browser.execute("return document.getElementById('render-frame').getAttribute('sandbox')") == "",
                        "plugin HTML is in a frame with no rights")
                #expect(try browser.execute("return [...document.querySelectorAll('#controls .control')].map(c => c.dataset.type)")
                        == ["string", "number", "boolean", "list"])
                // The Contract panel spells each output's payload (it printed `{,[object HTMLElement],: string, …}`).
                #expect(try browser.execute("return document.querySelector('#contract .outputs li').textContent")
                        == "tapped {title: string, count: number} — the user tapped the widget")

                try browser.type("From the browser", into: "#input-title")
                try browser.wait(for: "the re-render", "return document.getElementById('render-frame').srcdoc.includes('widget: From the browser')")
                try browser.click("#input-on")
                try browser.wait(for: "the toggle", "return document.getElementById('render-frame').srcdoc.includes('on=no')")
                try browser.click("#input-tags .add-item")
                try browser.type("zeta", into: "#input-tags .list-row:last-child .list-item")
                try browser.wait(for: "the list editor", "return document.getElementById('render-frame').srcdoc.includes('<li>zeta</li>')")

                _ = try browser.execute("document.getElementById('interaction-free').open = true")
                try browser.type("tap", into: "#interaction-name")
                try browser.click("#interact-button")
                try browser.wait(for: "the action-log entry", "return document.querySelectorAll('#records .record[data-event=tapped]').length === 1")
                let entry = try browser.execute("return document.querySelector('#records .record[data-event=tapped]').textContent")
                #expect(entry.stringValue?.contains("From the browser") == true)
                try browser.wait(for: "the remembered button", "return !!document.querySelector('.interaction-button[data-action=tap]')")
                try browser.click(".interaction-button[data-action=tap]")
                try browser.wait(for: "a second entry", "return document.querySelectorAll('#records .record[data-event=tapped]').length === 2")
                try Self.saveScreenshot(browser, "component")

                // No --flow: the Flow page says how to get one (it was an empty page with a Restart button).
                try browser.navigate(url + "#/flow")
                try browser.wait(for: "the no-flow notice", "return !!document.getElementById('no-flow')")
                #expect(try browser.execute("return document.getElementById('no-flow').textContent.includes('--flow FLOW.json')") == true)
                #expect(try browser.execute("return document.getElementById('flow-restart') === null") == true)

                try browser.navigate(url + "#/component/fragile@1")
                try browser.wait(for: "the error card", "return !!document.querySelector('#error-card .error-code')")
                #expect(try browser.execute("return document.querySelector('#error-card .error-code').textContent") == "plugin_crashed")
                try Self.saveScreenshot(browser, "crash-card")
            }
            #expect(try await running.request("GET", "/api/plugins").status == 200, "the server lives on")
            await running.stop()
        }

        @Test("a rebuilt plugin updates the open page, control values kept, no reload; a refused build is a banner")
        func hotSwapInPage() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"))
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            let browser = try await offPool { try WebDriver(niceness: 10) }
            defer { browser.quit() }
            try await offPool {
                try browser.navigate(url + "#/component/widget@1")
                try browser.wait(for: "the first render", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('widget: Hello') === true")
                try browser.wait(for: "the live channel", "return window.graftWorkbench.socketOpen === true")
                try browser.type("Kept", into: "#input-title")
                try browser.wait(for: "the re-render", "return document.getElementById('render-frame').srcdoc.includes('widget: Kept')")
                try browser.execute("window.notReloaded = true")
            }
            _ = try await offPool { try Fixtures.build("good_widget", into: folder, defines: ["WIDGET_PREFIX": "\"v2:\""]) }
            try await offPool {
                try browser.wait(for: "the new build's render", within: .seconds(10),
                                 "return document.getElementById('render-frame').srcdoc.includes('v2: Kept')")
                #expect(try browser.execute("return document.getElementById('input-title').value") == "Kept")
                #expect(try browser.execute("return window.notReloaded === true") == true)
            }
            _ = try await offPool { try Fixtures.build("bad_init_false", into: folder, outputName: "libgood_widget.so") }
            try await offPool {
                try browser.wait(for: "the error banner", within: .seconds(10), "return !!document.querySelector('.banner.error')")
                let text = try browser.execute("return document.querySelector('.banner.error').textContent")
                #expect(text.stringValue?.contains("plugin_init_failed") == true)
                try browser.type("Still old", into: "#input-title")
                try browser.wait(for: "a render on the old build", "return document.getElementById('render-frame').srcdoc.includes('v2: Still old')")
                try Self.saveScreenshot(browser, "refused-build")
            }
            // A good build after it: the red banner goes (it stayed above the green one).
            _ = try await offPool { try Fixtures.build("good_widget", into: folder, defines: ["WIDGET_PREFIX": "\"v3:\""]) }
            try await offPool {
                try browser.wait(for: "the good build's render", within: .seconds(10),
                                 "return document.getElementById('render-frame').srcdoc.includes('v3: Still old')")
                try browser.wait(for: "the red banner to go", within: .seconds(5), "return !document.querySelector('.banner.error')")
            }
            // A junk file no build of which ever ran: it could not load, and nothing "keeps serving".
            try Data("not a shared library".utf8).write(to: folder.appendingPathComponent("libjunk.so"))
            try await offPool {
                let junkBanner = "[...document.querySelectorAll('.banner.error')].map(b => b.textContent).find(t => t.includes('libjunk.so'))"
                try browser.wait(for: "the junk file's banner", within: .seconds(10), "return !!\(junkBanner)")
                let text = try browser.execute("return \(junkBanner)").stringValue ?? ""
                #expect(text.hasPrefix("Could not load"), "\(text)")
                #expect(!text.contains("keeps serving"), "\(text)")
            }
            await running.stop()
        }

        @Test("the sidebar lists plugins, failures and entries; a click opens one and the address names it; back keeps the filter")
        func sidebar() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_echo", into: folder)
            try Fixtures.build("bad_init_false", into: folder)
            try await Self.withPage(plugins: folder, cache: scratch.file("cache")) { browser, url in
                try browser.navigate(url + "#/log")
                try browser.wait(for: "the sidebar", "return document.body.dataset.sidebarPlugins === '1'")
                #expect(try browser.execute("return [...document.querySelectorAll('#sidebar .side-link')].map(a => a.dataset.kind + ' ' + a.dataset.name)")
                        == ["component echo@1", "validator is_even@1", "validator nonempty@1", "action echo_action@1"])
                #expect(try browser.execute("return document.querySelector('#sidebar .side-failure').dataset.code") == "plugin_init_failed")
                // The filter narrows to matching entries; nothing matching says so.
                try browser.type("zzz", into: "#sidebar-filter")
                try browser.wait(for: "the no-match note", "return !document.querySelector('#sidebar .side-none').hidden")
                _ = try browser.execute("const f = document.getElementById('sidebar-filter'); f.value = 'nonempty'; f.dispatchEvent(new Event('input'))")
                #expect(try browser.execute("return [...document.querySelectorAll('#sidebar .side-link')].filter(a => !a.parentElement.hidden).map(a => a.dataset.name)")
                        == ["nonempty@1"])
                // A validator opens the validators form with it chosen; the address names it.
                try browser.click("#sidebar .side-link[data-name=\"nonempty@1\"]")
                try browser.wait(for: "the chosen validator", "return (document.getElementById('validator') || {}).value === 'nonempty@1'")
                #expect(try browser.execute("return location.hash") == "#/try/validator/nonempty%401")
                #expect(try browser.execute("return document.querySelector('#sidebar [aria-current=page]').dataset.name") == "nonempty@1")
                // A component from the address; back returns to the validator, the filter as it was.
                _ = try browser.execute("document.getElementById('sidebar-filter').value = ''; document.getElementById('sidebar-filter').dispatchEvent(new Event('input')); location.hash = '#/component/echo%401'")
                try browser.wait(for: "the render", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('echo:hello') === true")
                #expect(try browser.execute("return document.querySelector('#sidebar [aria-current=page]').dataset.name") == "echo@1")
                _ = try browser.execute("const f = document.getElementById('sidebar-filter'); f.value = 'echo'; f.dispatchEvent(new Event('input')); history.back()")
                try browser.wait(for: "the validators page again", "return (document.getElementById('validator') || {}).value === 'nonempty@1'")
                #expect(try browser.execute("return document.getElementById('sidebar-filter').value") == "echo")
                // A reload keeps the filter too (it is kept for the tab).
                try browser.navigate(url + "#/plugins")
                try browser.wait(for: "the sidebar again", "return document.body.dataset.sidebarPlugins === '1'")
                #expect(try browser.execute("return document.getElementById('sidebar-filter').value") == "echo")
                try Self.saveScreenshot(browser, "sidebar")
            }
        }

        @Test("a plugin granted a data folder: the plugins page and its component's docs say what it keeps, and of what limit")
        func dataFolderShown() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("hostile", into: folder, defines: ["HOSTILE_PORT": "4444"])
            let data = scratch.url.appendingPathComponent("data")
            let sandbox = SandboxSettings(grants: ["test.hostile": [.dataFolder]], dataFolder: data.path, dataFolderLimit: 1 << 20)
            // Something kept: a file of 8 KiB (and its folder, which counts 4 KiB).
            _ = try sandbox.dataFolder(forPlugin: "test.hostile")
            try Data(count: 8192).write(to: data.appendingPathComponent("test.hostile/kept"))
            try await Self.withPage(plugins: folder, cache: scratch.file("cache"), sandbox: sandbox) { browser, url in
                try browser.navigate(url + "#/plugins")
                try browser.wait(for: "the data folder chip", "return !!document.querySelector('.data-folder .chip')")
                #expect(try browser.execute("return document.querySelector('.data-folder .chip').textContent") == "12 KiB of 1 MiB", "the file and its folder")
                try browser.navigate(url + "#/component/probe%401")
                try browser.wait(for: "the docs", "return !!document.getElementById('docs-data')")
                #expect(try browser.execute("return document.getElementById('docs-data').textContent") == "Keeps 12 KiB of 1 MiB in its data folder.")
            }
        }

        @Test("a signed plugin: the Plugins page and its component's docs name the publisher and the key; an unsigned one says so")
        func signerShown() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            let echo = try Fixtures.build("good_echo", into: folder)
            try FileManager.default.copyItem(at: try BuildProducts.plugin("DatePicker"), to: folder.appendingPathComponent("libDatePicker.so"))
            let key = Minisign.SecretKey.generated()
            let signed = try PluginSigning.signature(ofPluginAt: echo.path, id: "test.echo", version: "1.0.0", key: key)
            try signed.text.write(toFile: echo.path + ".minisig", atomically: true, encoding: .utf8)
            let policy = SignaturePolicy(publishers: [try Publisher(name: "acme", prefixes: ["test.echo"], keys: [key.publicKey.text])])
            try await Self.withPage(plugins: folder, cache: scratch.file("cache"), signatures: policy) { browser, url in
                try browser.navigate(url + "#/plugins")
                try browser.wait(for: "the signer chip", "return !!document.querySelector('.signer .chip')")
                #expect(try browser.execute("return document.querySelectorAll('.signer .chip').length") == 1, "the date picker is not signed")
                #expect(try browser.execute("return document.querySelector('article[data-id=\"test.echo\"] .signer .chip').textContent").stringValue == "acme · key \(key.id)")
                try browser.navigate(url + "#/component/echo%401")
                // The docs show first with the contract alone, then with the plugin's report (who signed it).
                try browser.wait(for: "the docs with the signer", "return document.getElementById('docs-signer')?.textContent.startsWith('acme') === true")
                #expect(try browser.execute("return document.getElementById('docs-signer').textContent").stringValue == "acme (key \(key.id))")
                try browser.navigate(url + "#/component/date_picker%402")
                try browser.wait(for: "the date picker's docs", "return document.getElementById('docs-signer')?.textContent === 'not signed'")
                #expect(try browser.execute("return document.getElementById('docs-signer').textContent") == "not signed")
            }
        }

        @Test("issue 43's bugs, each seen again: an address that does not decode, paywall@1 unescaped, a number too large, the background, an unknown component, the failures under a filter, the attach page unattached, stacking banners, the plugin's description")
        func pageBugs() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: try BuildProducts.plugin("Checkout"), to: folder.appendingPathComponent("libCheckout.so"))
            try Fixtures.build("bad_init_false", into: folder)
            try await Self.withPage(plugins: folder, cache: scratch.file("cache")) { browser, url in
                // 2: a % escape that is no UTF-8 is an error card, not a blank page.
                try browser.navigate(url + "#/component/%E0%A4%A")
                try browser.wait(for: "the address's error card", "return document.getElementById('error-card')?.querySelector('.error-code')?.textContent === 'invalid_reference'")
                // 3: the form the docs print marks its sidebar entry, as the escaped one does.
                try browser.navigate(url + "#/component/paywall@1")
                try browser.wait(for: "the paywall's render", "return (document.getElementById('render-frame') || {}).srcdoc?.length > 0")
                try browser.wait(for: "the sidebar", "return !!document.querySelector('#sidebar [aria-current=page]')")
                #expect(try browser.execute("return document.querySelector('#sidebar [aria-current=page]').dataset.name").stringValue == "paywall@1")
                // The plugin's own description, in the docs; a type name in one piece.
                try browser.wait(for: "the plugin's description", "return !!document.getElementById('docs-plugin-description')")
                #expect(try browser.execute("return document.getElementById('docs-plugin-description').textContent").stringValue?.contains("payment validators") == true)
                #expect(try browser.execute("return getComputedStyle(document.querySelector('.fields td.type')).whiteSpace").stringValue == "nowrap")
                // 5: typed 1e400 is no number the page can send: said beside the control, and nothing is
                // sent (before, it went as null: input_missing, and a price of 0.00).
                try browser.type("1e400", into: "#input-price")
                try browser.wait(
                    for: "the control's problem, and the last render without input_missing",
                    "return document.getElementById('input-price-problem').textContent === 'price must be a finite number' && !document.querySelector('#render-warnings [data-code=input_missing]')")
                #expect(try browser.execute("return document.getElementById('input-price').getAttribute('aria-invalid')").stringValue == "true")
                try browser.type("12.5", into: "#input-price")
                try browser.wait(for: "the problem gone", "return document.getElementById('input-price-problem').textContent === ''")
                try browser.wait(for: "the render of 12.50", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('12.50') === true")
                // 4: an input too large to send is said above the controls, outside the banners that pass, and
                // stays until a send renders.
                _ = try browser.execute("const t = document.getElementById('input-title'); t.value = 'x'.repeat(1 << 20); t.dispatchEvent(new Event('input'))")
                try browser.wait(for: "the controls' problem", "return document.getElementById('controls-problem').textContent.includes('request_too_large')")
                #expect(try browser.execute("return !!document.getElementById('controls-problem').closest('#banners')") == false)
                _ = try browser.execute("const t = document.getElementById('input-title'); t.value = 'Back'; t.dispatchEvent(new Event('input'))")
                try browser.wait(for: "the problem gone with a render", "return document.getElementById('controls-problem').textContent === '' && (document.getElementById('render-frame') || {}).srcdoc?.includes('Back') === true")
                // 6: the background reaches the component: its frame is transparent over the canvas.
                _ = try browser.execute("const b = document.getElementById('canvas-background'); b.value = 'dark'; b.dispatchEvent(new Event('change'))")
                #expect(try browser.execute("return getComputedStyle(document.getElementById('render-frame')).backgroundColor").stringValue == "rgba(0, 0, 0, 0)")
                #expect(try browser.execute("return getComputedStyle(document.getElementById('canvas')).backgroundColor").stringValue == "rgb(27, 31, 29)")
                // The records list scrolls from the keyboard.
                #expect(try browser.execute("return document.getElementById('records').tabIndex") == 0)
                // 10: an unknown component is its error card alone.
                try browser.navigate(url + "#/component/nope@1")
                try browser.wait(for: "the error card", "return !!document.getElementById('error-card')")
                #expect(try browser.execute("return ['stories', 'controls', 'interactions', 'canvas'].filter(id => document.getElementById(id)).length") == 0)
                // 12: the failures count what the filter shows.
                _ = try browser.execute("const f = document.getElementById('sidebar-filter'); f.value = 'bad_init'; f.dispatchEvent(new Event('input'))")
                #expect(try browser.execute("return document.querySelector('#sidebar .side-failures summary').textContent").stringValue == "Failed (1 of 1)")
                _ = try browser.execute("const f = document.getElementById('sidebar-filter'); f.value = 'paywall'; f.dispatchEvent(new Event('input'))")
                #expect(try browser.execute("return document.querySelector('#sidebar .side-failures').hidden") == true)
                _ = try browser.execute("const f = document.getElementById('sidebar-filter'); f.value = ''; f.dispatchEvent(new Event('input'))")
                #expect(try browser.execute("return document.querySelector('#sidebar .side-failures summary').textContent").stringValue == "Failed (1)")
                // 11: the attach page of a workbench attached to nothing asks the server for nothing.
                try browser.navigate(url + "#/attach")
                try browser.wait(for: "the note", "return !!document.getElementById('no-attach')")
                #expect(try browser.execute("return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/attach')).length") == 0)
                // 7: a banner said again is not stacked; at most three pass at once; a fetch that failed is said in words.
                _ = try browser.execute("for (let i = 0; i < 5; i++) banner('error', 'the same'); for (let i = 0; i < 5; i++) banner('error', 'other ' + i)")
                #expect(try browser.execute("return document.querySelectorAll('#banners .banner').length") == 3)
                // A banner asked to stay, whose text a passing one already shows, stays under its key; the cap spares it.
                _ = try browser.execute("banner('error', 'other 4', { sticky: true, key: 'k' }); for (let i = 0; i < 5; i++) banner('error', 'more ' + i)")
                #expect(try browser.execute("return [...document.querySelectorAll('#banners .banner[data-sticky]')].map(b => b.dataset.key + ' ' + b.dataset.text)") == ["k other 4"])
                _ = try browser.execute("dropBanners('k')")
                let unreachable = try browser.executeAsync("const done = arguments[0]; api('GET', 'http://127.0.0.1:9/none').then(() => done('answered'), e => done(errorText(e)))")
                #expect(unreachable.stringValue?.hasPrefix("server_unreachable: the workbench server cannot be reached") == true, "\(unreachable)")
                // 15: the Plugins page's headings go down one level at a time; each plugin says what it is.
                try browser.navigate(url + "#/plugins")
                try browser.wait(for: "the plugins", "return !!document.getElementById('loaded-heading')")
                #expect(try browser.execute("return document.getElementById('loaded-heading').textContent").stringValue == "Loaded (1)")
                #expect(try browser.execute("return document.querySelector('.plugin-description')?.textContent ?? ''").stringValue?.contains("payment validators") == true)
            }
        }

        @Test("at 600 px no page scrolls sideways")
        func narrowWindow() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            try FileManager.default.copyItem(at: try BuildProducts.plugin("Checkout"), to: folder.appendingPathComponent("libCheckout.so"))
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"), watches: false)
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            try await offPool {
                let browser = try WebDriver(width: 600, height: 900, niceness: 10)
                defer { browser.quit() }
                try browser.navigate(url)
                try browser.wait(for: "the plugin list", "return document.body.dataset.pluginsShown === '2'")
                for (page, ready) in [
                    ("", "return document.body.dataset.pluginsShown === '2'"),
                    ("#/component/widget@1", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('widget:') === true"),
                    ("#/try", "return !!document.getElementById('validator')"),
                    ("#/log", "return !!document.getElementById('records')"),
                    // A component given a desktop-wide container: its frame scrolls inside the canvas, not the page.
                    ("#/component/paywall@1", """
                        const size = document.getElementById('canvas-size');
                        if (size && size.value !== 'desktop' && document.getElementById('render-frame')) {
                          size.value = 'desktop'; size.dispatchEvent(new Event('change'));
                        }
                        return (document.getElementById('render-frame') || {}).srcdoc?.includes('max-width:1280px') === true
                        """),
                ] {
                    try browser.navigate(url + page)
                    try browser.wait(for: "page '\(page)'", ready)
                    // The elements sticking out on the right, if any, to say which.
                    let wide = try browser.execute("""
                        const width = document.documentElement.clientWidth;
                        if (document.documentElement.scrollWidth <= width) return [];
                        return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > width + 1)
                          .slice(0, 5).map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right));
                        """)
                    #expect(wide == [], "page '\(page)' scrolls sideways at 600 px: \(wide)")
                }
            }
            await running.stop()
        }

        @Test("a declared interaction is a form of its data fields: an empty date is refused, visibly; a date is taken; JSON that does not parse sends nothing")
        func refusedInteraction() async throws {
            try await Self.withFirstPartyPlugin("DatePicker") { browser, url in
                try browser.navigate(url + "#/component/date_picker%402")
                try browser.wait(for: "the select form", "return !!document.getElementById('interact-select-date')")
                try browser.wait(for: "the first render", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('Pick a date') === true")
                #expect(try browser.execute("return document.querySelector('label[for=interact-select-date]').textContent") == "date string")
                // The form starts from a sample of the field's type: an empty date, which the picker refuses (it said it
                // took it, and nothing showed).
                try browser.click(".interaction-button[data-action=select]")
                try browser.wait(for: "the refusal", "return document.getElementById('interaction-note').textContent.includes('did not take it')")
                #expect(try browser.execute("return document.getElementById('render-warnings').textContent.includes('interaction_refused')") == true)
                // A date it can use, typed in the field, is taken and reaches the action log.
                try browser.type("2026-12-24", into: "#interact-select-date")
                try browser.click(".interaction-button[data-action=select]")
                try browser.wait(for: "the event", "return document.querySelectorAll('#records .record[data-event=date_selected]').length === 1")
                #expect(try browser.execute("return document.getElementById('interaction-note').textContent") == "select: answered")
                // JSON instead of the fields: what does not parse is refused in the form, and nothing is sent.
                _ = try browser.execute("""
                    const form = document.querySelector('.interaction-form[data-action=select]');
                    form.querySelector('details').open = true;
                    form.querySelector('.raw-json').value = '{nope';
                    """)
                try browser.click(".interaction-button[data-action=select]")
                try browser.wait(for: "the problem", "return document.querySelector('.interaction-form[data-action=select] .form-problems').textContent === 'the JSON is not valid'")
                #expect(try browser.execute("return document.querySelectorAll('#records .record[data-event=date_selected]').length") == 1)
            }
        }

        @Test("the docs panel, forms for events and interactions checked against their types, the canvas size reaching the component, readable action results")
        func formsCanvasAndDocs() async throws {
            try await Self.withFirstPartyPlugin("Checkout") { browser, url in
                try browser.navigate(url + "#/component/paywall%401")
                try browser.wait(for: "the first render", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('Graft Pro') === true")
                try browser.wait(for: "the plugin in the docs", "return document.getElementById('docs-facts').textContent.includes('dev.graft.checkout')")
                #expect(try browser.execute("return document.getElementById('docs-name').textContent") == "Paywall")
                let facts = try browser.execute("return document.getElementById('docs-facts').textContent").stringValue ?? ""
                #expect(facts.contains("VendorGraft") && facts.contains("component 1 · plugin 1.0.0"), "\(facts)")
                #expect(try browser.execute("return document.querySelector('#contract .declared-interactions').textContent")
                        .stringValue?.contains("dismiss {reason: string} — Tap Not now") == true)
                #expect(try browser.execute("return document.getElementById('docs-permissions').textContent").stringValue?.hasPrefix("none requested") == true)

                // An interaction's form: its one field, sent as its data.
                try browser.type("too pricey", into: "#interact-dismiss-reason")
                try browser.click(".interaction-button[data-action=dismiss]")
                try browser.wait(for: "the dismiss event", "return document.querySelectorAll('#records .record[data-event=dismiss]').length === 1")
                #expect(try browser.execute("return document.querySelector('#records .record[data-event=dismiss] .payload').textContent") == #"{"reason":"too pricey"}"#)

                // An event's form: a price that is not a number is refused before anything is sent; a number goes.
                try browser.type("Graft Team", into: "#emit-purchase-title")
                _ = try browser.execute("const p = document.getElementById('emit-purchase-price'); p.value = ''; p.dispatchEvent(new Event('input'))")
                try browser.click(".emit-button[data-event=purchase]")
                try browser.wait(for: "the type problem", "return document.querySelector('.emit-form[data-event=purchase] .form-problems').textContent === 'price must be a number'")
                #expect(try browser.execute("return document.querySelectorAll('#records .record[data-event=purchase]').length") == 0)
                try browser.type("12.5", into: "#emit-purchase-price")
                try browser.click(".emit-button[data-event=purchase]")
                try browser.wait(for: "the simulated event", "return document.querySelectorAll('#records .record[data-event=purchase]').length === 1")
                let purchase = try browser.execute("return document.querySelector('#records .record[data-event=purchase] .payload').textContent")
                #expect(purchase == #"{"price":12.5,"title":"Graft Team"}"#, "\(purchase)")

                // The canvas: a preset size is the component's container size (the paywall bounds its card by it), and
                // the frame takes it; a free width too; zoom and background are the page's own.
                _ = try browser.execute("const s = document.getElementById('canvas-size'); s.value = 'phone'; s.dispatchEvent(new Event('change'))")
                try browser.wait(for: "the phone-sized render", "return document.getElementById('render-frame').srcdoc.includes('max-width:360px')")
                #expect(try browser.execute("return document.getElementById('render-frame').getBoundingClientRect().width") == 360)
                #expect(try browser.execute("return document.getElementById('render-frame').getBoundingClientRect().height") == 640)
                try browser.type("500\u{E007}", into: "#canvas-width")
                try browser.wait(for: "the custom width", "return document.getElementById('render-frame').srcdoc.includes('max-width:500px')")
                #expect(try browser.execute("return document.getElementById('canvas-size').value") == "custom")
                _ = try browser.execute("const z = document.getElementById('canvas-zoom'); z.value = '50'; z.dispatchEvent(new Event('change'))")
                #expect(try browser.execute("return Math.round(document.getElementById('render-frame').getBoundingClientRect().width)") == 250)
                _ = try browser.execute("const b = document.getElementById('canvas-background'); b.value = 'dark'; b.dispatchEvent(new Event('change'))")
                #expect(try browser.execute("return getComputedStyle(document.getElementById('canvas')).backgroundColor") == "rgb(27, 31, 29)")
                // The inputs keep their values across the new instance a size needs.
                #expect(try browser.execute("return document.getElementById('render-frame').srcdoc.includes('Graft Pro')") == true)

                // An action's result as rows, the raw JSON behind a toggle.
                try browser.navigate(url + "#/try/action/format_currency@1")
                try browser.wait(for: "the action form", "return !!document.getElementById('action-param-amount')")
                try browser.type("1234.5", into: "#action-param-amount")
                try browser.type("USD", into: "#action-param-currency")
                try browser.type("total", into: "#action-param-variable")
                try browser.click("#action-button")
                try browser.wait(for: "the rows", "return !!document.getElementById('action-rows')")
                let rows = try browser.execute("return document.getElementById('action-rows').textContent")
                #expect(rows == "sets total$1,234.50result$1,234.50", "\(rows)")
                #expect(try browser.execute("return document.querySelector('#action-result .ok').textContent") == "format_currency@1 ran")
            }
        }

        @Test("stories: the controls saved under a name, back to the debugConfig and again; shared as a link and as a graft try command that renders the same")
        func stories() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            let running = try await RunningWorkbench.start(in: scratch, firstParty: ["Checkout"])
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            let rendered = "return (document.getElementById('render-frame') || {}).srcdoc?.includes(arguments[0]) === true"
            let command = try await offPool { () throws -> String in
                let browser = try WebDriver(niceness: 10)
                defer { browser.quit() }
                try browser.navigate(url)
                try browser.wait(for: "the plugin list", "return document.body.dataset.pluginsShown === '1'")
                _ = try browser.execute("location.hash = '#/component/paywall@1'")
                try browser.wait(for: "the first render", rendered.replacingOccurrences(of: "arguments[0]", with: "'Graft Pro'"))
                // The plugin's own stories are listed after the debugConfig; one is its inputs. The page fills
                // the list after it shows the render, so the test waits for it (it read it too early once in CI).
                try browser.wait(for: "the story list", "return document.getElementById('story').options.length >= 4")
                #expect(try browser.execute("return [...document.getElementById('story').options].map(o => o.value)")
                        == ["debug", "plugin:sale", "plugin:many_features", "plugin:free"])
                _ = try browser.execute("const s = document.getElementById('story'); s.value = 'plugin:sale'; s.dispatchEvent(new Event('change'))")
                try browser.wait(for: "the plugin's story", rendered.replacingOccurrences(of: "arguments[0]", with: "'50% off'"))
                #expect(try browser.execute("return document.getElementById('input-price').value") == "4.99")
                try browser.type("A story title", into: "#input-title")
                try browser.wait(for: "the edited render", rendered.replacingOccurrences(of: "arguments[0]", with: "'A story title'"))
                try browser.type("long\u{E007}", into: "#story-name")
                try browser.wait(for: "the saved story", "return document.getElementById('story').value === 'local:long'")
                try browser.click("#story-reset")
                try browser.wait(for: "the debugConfig again", rendered.replacingOccurrences(of: "arguments[0]", with: "'Graft Pro'"))
                #expect(try browser.execute("return document.getElementById('input-title').value") == "Graft Pro")
                _ = try browser.execute("const s = document.getElementById('story'); s.value = 'local:long'; s.dispatchEvent(new Event('change'))")
                try browser.wait(for: "the story again", rendered.replacingOccurrences(of: "arguments[0]", with: "'A story title'"))

                // The link opens the same inputs, in a page of its own.
                try browser.click("#copy-link")
                let link = try #require(try browser.execute("return document.getElementById('share-text').value").stringValue)
                #expect(link.contains("#/component/paywall%401?inputs="), "\(link)")
                try browser.navigate(url)
                try browser.wait(for: "the plugin list", "return document.body.dataset.pluginsShown === '1'")
                _ = try browser.execute("location.href = arguments[0]", [.string(link)])
                try browser.wait(for: "the shared inputs", rendered.replacingOccurrences(of: "arguments[0]", with: "'A story title'"))
                #expect(try browser.execute("return document.querySelector('#sidebar [aria-current=page]')?.textContent") == "paywall@1",
                        "a shared link still marks its entry in the sidebar")
                try browser.click("#copy-command")
                return try #require(try browser.execute("return document.getElementById('share-text').value").stringValue)
            }
            #expect(command.hasPrefix("graft try paywall@1 --config '{"), "\(command)")
            #expect(command.hasSuffix("' --html"), "\(command)")
            // The command, run as written, renders the same inputs.
            let tried = try runCommand(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", command.replacingOccurrences(of: "graft try", with: "'\(try BuildProducts.graft().path)' try --only-plugin-path --plugin-path '\(folder.path)'")],
                environment: ["XDG_CACHE_HOME": scratch.file("cli-cache").path, "PATH": "/usr/bin:/bin"], timeout: .seconds(60))
            #expect(tried.status == 0, "\(tried.stderr)")
            #expect(tried.stdout.contains("A story title"), "\(tried.stdout)")
            await running.stop()
        }

        @Test("a page whose server goes away says so, and stays saying so")
        func serverGone() async throws {
            let scratch = try Scratch()
            let running = try await RunningWorkbench.start(in: scratch, fixtures: ["good_widget"])
            let url = try #require(running.workbench.url)
            let browser = try await offPool { try WebDriver(niceness: 10) }
            defer { browser.quit() }
            try await offPool {
                try browser.navigate(url)
                try browser.wait(for: "the live channel", "return window.graftWorkbench.socketOpen === true")
            }
            await running.stop()
            try await offPool {
                try browser.wait(for: "the server-gone banner", "return [...document.querySelectorAll('.banner.error')].some(b => b.textContent.includes('server is gone'))")
                #expect(try browser.execute("return document.getElementById('live').textContent") == "offline, reconnecting…")
            }
        }

        /// A workbench over one first-party plugin, and a browser on its page.
        static func withFirstPartyPlugin(_ plugin: String, _ body: @escaping @Sendable (WebDriver, String) throws -> Void) async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: try BuildProducts.plugin(plugin), to: folder.appendingPathComponent("lib\(plugin).so"))
            try await withPage(plugins: folder, cache: scratch.file("cache"), body)
        }

        /// A workbench over the plugins in `folder` (not watched), and a
        /// browser given its address (with the token) to open.
        static func withPage(
            plugins folder: URL, cache: URL, sandbox: SandboxSettings = SandboxSettings(), signatures: SignaturePolicy = SignaturePolicy(),
            _ body: @escaping @Sendable (WebDriver, String) throws -> Void
        ) async throws {
            let running = try await RunningWorkbench.start(plugins: folder, cache: cache, watches: false, sandbox: sandbox, signatures: signatures)
            defer { Task { await running.stop() } }
            try await running.withBrowser(body)
            await running.stop()
        }

        @Test("the validators form: Enter validates, and another validator's result never shows under the next one")
        func validatorsForm() async throws {
            try await Self.withFirstPartyPlugin("Checkout") { browser, url in
                try browser.navigate(url + "#/try")
                try browser.wait(for: "the validators", "return !!document.querySelector('#validator option[value=\"luhn@1\"]')")
                _ = try browser.execute("const s = document.getElementById('validator'); s.value = 'luhn@1'; s.dispatchEvent(new Event('change'))")
                // Enter in the value validates (it did nothing).
                try browser.type("4242 4242 4242 4241\u{E007}", into: "#validator-value")
                try browser.wait(for: "the result", "return document.getElementById('validator-result').textContent.startsWith('invalid')")
                // Another validator: the last result goes (luhn's "invalid" showed under iban).
                _ = try browser.execute("const s = document.getElementById('validator'); s.value = 'iban@1'; s.dispatchEvent(new Event('change'))")
                #expect(try browser.execute("return document.getElementById('validator-result').textContent") == "")
                try browser.type("4242 4242 4242 4242\u{E007}", into: "#validator-value")
                try browser.wait(for: "iban's result", "return document.getElementById('validator-result').textContent !== ''")
            }
        }

        @Test("the Flow page runs the flow screen by screen, the transcript and variables beside it")
        func flowPage() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            try Data(WorkbenchFlowAndAttachTests.flow.utf8).write(to: scratch.file("flow.json"))
            let running = try await RunningWorkbench.start(
                plugins: folder, cache: scratch.file("cache"), flow: scratch.file("flow.json").path, watches: false)
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            try await offPool {
                let browser = try WebDriver(niceness: 10)
                defer { browser.quit() }
                try browser.navigate(url + "#/flow")
                try browser.wait(for: "the first screen", "return !!document.querySelector('.flow-instance[data-instance=hero] .render-frame')?.srcdoc.includes('widget: Welcome')")
                #expect(try browser.execute("return !document.querySelector('[data-nav=flow]').hidden") == true)
                _ = try browser.execute("document.querySelector('.flow-instance[data-instance=hero] > details').open = true")
                try browser.type("tap", into: ".flow-instance[data-instance=hero] .flow-action")
                try browser.click(".flow-instance[data-instance=hero] .flow-interact-button")
                try browser.wait(for: "the second screen", "return document.getElementById('flow-head').textContent.includes('screen second')")
                #expect(try browser.execute("return document.querySelectorAll('#transcript .entry[data-type=navigation]').length") == 1)
                #expect(try browser.execute("return document.querySelectorAll('#transcript .entry[data-type=event]').length") == 1)
                let variables = try browser.execute("return document.getElementById('variables').textContent")
                #expect(variables.stringValue?.contains("taps1") == true)
                try Self.saveScreenshot(browser, "flow")

                // Again from the start, the widget's event as a form of its payload fields, sent as the instance's.
                try browser.click("#flow-restart")
                try browser.wait(for: "the event form", "return !!document.querySelector('.flow-instance[data-instance=hero] .emit-form[data-event=tapped]')")
                try browser.type("from a form", into: "#flow-hero-emit-tapped-title")
                try browser.type("7", into: "#flow-hero-emit-tapped-count")
                try browser.click(".flow-instance[data-instance=hero] .emit-form[data-event=tapped] .form-submit")
                try browser.wait(for: "the emitted event", "return [...document.querySelectorAll('#transcript .entry[data-type=event]')].some(e => e.textContent.includes('from a form'))")
                try browser.wait(for: "the variable it set", "return document.getElementById('variables').textContent.includes('taps7')")

                // The widget's own page lists its session's records, not the flow's instance of the same component.
                try browser.navigate(url + "#/component/widget@1")
                try browser.wait(for: "the component's render", "return (document.getElementById('render-frame') || {}).srcdoc?.includes('widget:') === true")
                try browser.wait(for: "the log loaded", "return document.getElementById('record-count').textContent !== ''")
                #expect(try browser.execute("return document.querySelectorAll('#records .record[data-instance=hero]').length") == 0)
                _ = try browser.execute("document.getElementById('interaction-free').open = true")
                try browser.type("tap", into: "#interaction-name")
                try browser.click("#interact-button")
                try browser.wait(for: "the page's own record", "return document.querySelectorAll('#records .record[data-event=tapped]').length === 1")
                #expect(try browser.execute("return document.querySelectorAll('#records .record[data-instance=hero]').length") == 0)
            }
            await running.stop()
        }
    }
}
