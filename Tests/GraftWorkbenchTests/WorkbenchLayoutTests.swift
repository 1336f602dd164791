import Foundation
import GraftHost
import GraftTestSupport
import GraftWebDriver
import GraftWorkbench
import Testing

/// The component at the centre (issue 43, items 1 and 5): the render in view on every component page at a laptop's
/// and a narrow window's size, while the panel scrolls; the panel hidden and moved; fullscreen and the canvas alone;
/// the keys, the skip link, the theme, and an address that reopens exactly what was shown.
extension WorkbenchTests {
    /// The keys the page answers (its `?` list, `SHORTCUTS` in layout.js) are the keys the Workbench article lists.
    @Test("the Workbench article lists every key the page answers, and no other")
    func keysDocumented() throws {
        let resources = Fixtures.root.appendingPathComponent("Sources/GraftWorkbench")
        let script = try String(contentsOf: resources.appendingPathComponent("Resources/layout.js"), encoding: .utf8)
        let article = try String(contentsOf: resources.appendingPathComponent("Documentation.docc/Workbench.md"), encoding: .utf8)
        let list = try #require(script.components(separatedBy: "const SHORTCUTS = [").last?.components(separatedBy: "];").first)
        let pageKeys = Set(list.split(separator: "\n").compactMap { line -> [String]? in
            guard let open = line.firstIndex(of: "'"), let close = line[line.index(after: open)...].firstIndex(of: "'") else { return nil }
            return line[line.index(after: open)..<close].components(separatedBy: " / ")
        }.flatMap { $0 })
        let table = try #require(article.components(separatedBy: "| key | what it does |").last?.components(separatedBy: "\n\n").first)
        let documented = Set(table.split(separator: "\n").dropFirst(1).flatMap { row -> [String] in
            let first = row.split(separator: "|").first ?? ""
            return first.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        })
        #expect(pageKeys.count >= 8, "\(pageKeys)")
        #expect(pageKeys == documented, "the page: \(pageKeys.sorted()); the article: \(documented.sorted())")
    }

    @Suite("Workbench: the component at the centre", .timeLimit(.minutes(10)), .enabled(if: Browser.shouldRun, "needs chromium and chromedriver"))
    struct WorkbenchLayoutTests {
        static let rendered = "return (document.getElementById('render-frame') || {}).srcdoc?.includes(arguments[0]) === true"

        /// Where an element is, against the window: whether it is wholly inside, and its box for messages.
        static let inView = """
            const box = document.getElementById(arguments[0]).getBoundingClientRect();
            const inside = box.width > 0 && box.height > 0 && box.top >= 0 && box.left >= 0
              && box.bottom <= window.innerHeight + 0.5 && box.right <= window.innerWidth + 0.5;
            return inside ? 'in view' : `${Math.round(box.left)},${Math.round(box.top)} ${Math.round(box.width)}×${Math.round(box.height)} in ${innerWidth}×${innerHeight}`;
            """

        static func plugins(in scratch: borrowing Scratch) throws -> URL {
            let folder = scratch.url.appendingPathComponent("plugins")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for plugin in ["DatePicker", "Checkout"] {
                try FileManager.default.copyItem(at: try BuildProducts.plugin(plugin), to: folder.appendingPathComponent("lib\(plugin).so"))
            }
            try Fixtures.build("good_widget", into: folder)
            return folder
        }

        /// A workbench over the test plugins, and a 1280×800 browser on the paywall's page once its address's state is applied.
        static func onPaywall(_ body: @escaping @Sendable (WebDriver, String) throws -> Void) async throws {
            let scratch = try Scratch()
            let running = try await RunningWorkbench.start(plugins: try Self.plugins(in: scratch), cache: scratch.file("cache"), watches: false)
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            try await offPool {
                let browser = try WebDriver(width: 1280, height: 800, niceness: 10)
                defer { browser.quit() }
                try browser.navigate(url + "#/component/paywall%401")
                try browser.wait(for: "the paywall", "return document.body.dataset.stateApplied === 'paywall@1'")
                try body(browser, url)
            }
            await running.stop()
        }

        @Test("every component page, at 1280×800 and 600×900: the render wholly in view without scrolling, and still there while a control far down the panel is edited",
              arguments: [(1280, 800), (600, 900)])
        func canvasInView(size: (Int, Int)) async throws {
            let scratch = try Scratch()
            let running = try await RunningWorkbench.start(plugins: try Self.plugins(in: scratch), cache: scratch.file("cache"), watches: false)
            defer { Task { await running.stop() } }
            let url = try #require(running.workbench.url)
            try await offPool {
                let browser = try WebDriver(width: size.0, height: size.1, niceness: 10)
                defer { browser.quit() }
                try browser.navigate(url)
                try browser.wait(for: "the sidebar", "return document.querySelectorAll('#sidebar .side-component').length >= 4")
                let pages = try browser.execute("return [...document.querySelectorAll('#sidebar .side-component')].map(a => a.getAttribute('href'))")
                    .listValue?.compactMap(\.stringValue) ?? []
                #expect(pages.count >= 4, "\(pages)")
                for page in pages {
                    _ = try browser.execute("location.hash = arguments[0]", [.string(page)])
                    let reference = try #require(page.removingPercentEncoding?.replacingOccurrences(of: "#/component/", with: ""))
                    try browser.wait(for: "\(page) opened", "return document.body.dataset.stateApplied === '\(reference)'")
                    try browser.wait(for: "the render of \(page)", "return !!document.getElementById('render-frame') || !!document.getElementById('error-card')")
                    #expect(try browser.execute(Self.inView, ["canvas"]) == "in view", "\(page) at \(size)")
                    #expect(try browser.execute("return document.scrollingElement.scrollHeight <= innerHeight && scrollY === 0") == true,
                            "\(page) at \(size): the page itself does not scroll")
                }

                // Editing the last control of the paywall (at the panel's foot) scrolls the panel, never the render.
                _ = try browser.execute("location.hash = '#/component/paywall%401'")
                try browser.wait(for: "the paywall", Self.rendered.replacingOccurrences(of: "arguments[0]", with: "'Graft Pro'"))
                #expect(try browser.execute("const c = [...document.querySelectorAll('#controls input[type=text]')].pop(); c.dataset.farDown = ''; return c.className") == "list-item")
                try browser.type("edited far down", into: "[data-far-down]")
                try browser.wait(for: "the edit rendered", Self.rendered.replacingOccurrences(of: "arguments[0]", with: "'edited far down'"))
                #expect(try browser.execute(Self.inView, ["canvas"]) == "in view", "while editing at \(size)")
                #expect(try browser.execute("return document.getElementById('panel').scrollTop > 0") == true, "the panel scrolled to the control")
                try WorkbenchBrowserTests.saveScreenshot(browser, "centre-\(size.0)x\(size.1)")
            }
            await running.stop()
        }

        @Test("the panel hides and moves (buttons and keys), the render goes fullscreen and back, and the canvas alone shows only the render")
        func panelFullscreenAndCanvasOnly() async throws {
            try await Self.onPaywall { browser, url in
                let stageHeight = "return Math.round(document.getElementById('stage').getBoundingClientRect().height)"
                let below = try #require(try browser.execute(stageHeight).numberValue)

                try browser.press("a")
                try browser.wait(for: "the panel hidden", "return getComputedStyle(document.getElementById('panel')).display === 'none'")
                #expect(try #require(try browser.execute(stageHeight).numberValue) > below + 150, "the render takes the panel's room")
                #expect(try browser.execute("return location.hash.includes('panel=hidden')") == true)
                try browser.click("#panel-toggle")
                try browser.wait(for: "the panel back", "return getComputedStyle(document.getElementById('panel')).display !== 'none'")
                try browser.press("d")
                try browser.wait(for: "the panel on the right", """
                    const stage = document.getElementById('stage').getBoundingClientRect(), panel = document.getElementById('panel').getBoundingClientRect();
                    return panel.left >= stage.right && Math.abs(panel.top - stage.top) < 2
                    """)
                #expect(try browser.execute(Self.inView, ["canvas"]) == "in view")
                #expect(try browser.execute("return location.hash.includes('panel=right')") == true)
                // The choice lasts: a new page of another component opens with the panel on the right.
                _ = try browser.execute("location.hash = '#/component/date_picker%402'")
                try browser.wait(for: "the date picker", "return document.body.dataset.stateApplied === 'date_picker@2'")
                #expect(try browser.execute("return document.getElementById('component-page').dataset.panel") == "right")
                try browser.click("#panel-position")
                try browser.wait(for: "the panel below", "return document.getElementById('component-page').dataset.panel === 'bottom'")

                // Fullscreen: the render fills the screen (the browser's fullscreen, or the window where that is refused).
                try browser.press("f")
                try browser.wait(for: "the render fullscreen", """
                    const box = document.getElementById('stage').getBoundingClientRect();
                    return (document.fullscreenElement === document.getElementById('stage') || document.getElementById('component-page').dataset.maximized === 'true')
                      && box.left <= 0 && box.top <= 0 && box.width >= innerWidth - 1 && box.height >= innerHeight - 1
                    """)
                try browser.press("f")
                try browser.wait(for: "the render back in the page", """
                    return !document.fullscreenElement && document.getElementById('component-page').dataset.maximized === undefined
                      && document.getElementById('stage').getBoundingClientRect().top > 40
                    """)

                // The canvas alone: only the render, filling the window, with the page's state.
                _ = try browser.execute("location.hash = '#/component/paywall%401?inputs=' + encodeURIComponent(JSON.stringify({title: 'Alone', price: 2}))")
                try browser.wait(for: "the paywall", "return document.body.dataset.stateApplied === 'paywall@1'")
                let canvasOnly = try #require(try browser.execute("return document.getElementById('canvas-only').getAttribute('href')").stringValue)
                #expect(canvasOnly.hasPrefix("#/canvas/paywall%401?inputs="), "\(canvasOnly)")
                try browser.navigate(url + canvasOnly)
                try browser.wait(for: "the canvas alone", Self.rendered.replacingOccurrences(of: "arguments[0]", with: "'Alone'"))
                #expect(try browser.execute("""
                    return ['.top', '#sidebar', '#panel', '.component-head'].filter(s => {
                      const e = document.querySelector(s); return e && e.getBoundingClientRect().height > 0 })
                    """) == [], "nothing but the render")
                #expect(try browser.execute("""
                    const box = document.getElementById('canvas').getBoundingClientRect();
                    return box.top === 0 && box.left === 0 && Math.round(box.width) === innerWidth && Math.round(box.height) === innerHeight
                    """) == true)
                try WorkbenchBrowserTests.saveScreenshot(browser, "canvas-only")
            }
        }

        @Test("keys and the address: the skip link first, / to the filter, ? for the keys, Alt+↓ for the next story, a theme toggle; a copied address reopens story, inputs, size, background, zoom, media type, theme and panel")
        func keysAndAddress() async throws {
            try await Self.onPaywall { browser, _ in

                // The first Tab stop skips to the render.
                try browser.press(WebDriver.Key.tab)
                #expect(try browser.execute("return document.activeElement.id") == "skip-link")
                try browser.press(WebDriver.Key.enter)
                #expect(try browser.execute("return document.activeElement.id") == "stage")
                try browser.press("/")
                #expect(try browser.execute("return document.activeElement.id") == "sidebar-filter")
                try browser.press("t")  // typed into the filter: not a shortcut
                #expect(try browser.execute("return document.getElementById('sidebar-filter').value") == "t")
                try browser.press(WebDriver.Key.escape)
                #expect(try browser.execute("return document.activeElement === document.body") == true)
                _ = try browser.execute("const f = document.getElementById('sidebar-filter'); f.value = ''; f.dispatchEvent(new Event('input'))")
                try browser.press("?")
                #expect(try browser.execute("return document.getElementById('shortcuts').open") == true)
                #expect(try browser.execute("return document.getElementById('shortcuts').textContent.includes('next or previous story')") == true)
                try browser.press(WebDriver.Key.escape)
                #expect(try browser.execute("return document.getElementById('shortcuts').open") == false)

                // Alt+↓: the plugin's first story, then the next.
                try browser.press(WebDriver.Key.alt + WebDriver.Key.down)
                try browser.wait(for: "the first story", "return document.getElementById('story').value === 'plugin:sale'")
                try browser.wait(for: "its render", Self.rendered.replacingOccurrences(of: "arguments[0]", with: "'50% off'"))
                try browser.press(WebDriver.Key.alt + WebDriver.Key.down)
                try browser.wait(for: "the next story", "return document.getElementById('story').value === 'plugin:many_features'")
                try browser.press(WebDriver.Key.alt + WebDriver.Key.up)
                try browser.wait(for: "back to the first", "return document.getElementById('story').value === 'plugin:sale'")

                // The theme toggle: system, light, dark; the page's paper follows.
                #expect(try browser.execute("return document.documentElement.dataset.theme") == "light")
                try browser.click("#theme-toggle")
                try browser.click("#theme-toggle")
                #expect(try browser.execute("return document.getElementById('theme-toggle').textContent") == "Theme: dark")
                #expect(try browser.execute("return getComputedStyle(document.body).backgroundColor") == "rgb(20, 26, 23)")

                // Everything the page shows, then its address in a fresh page with nothing kept in the browser.
                try browser.type("Round trip", into: "#input-title")
                try browser.wait(for: "the edit", Self.rendered.replacingOccurrences(of: "arguments[0]", with: "'Round trip'"))
                for (select, value) in [("canvas-size", "phone"), ("canvas-background", "checker"), ("canvas-zoom", "150"), ("media-type", "text/plain")] {
                    _ = try browser.execute("const s = document.getElementById(arguments[0]); s.value = arguments[1]; s.dispatchEvent(new Event('change'))",
                                            [.string(select), .string(value)])
                }
                try browser.wait(for: "the text render at phone size", """
                    return (document.getElementById('render-frame-text') || {}).textContent?.includes('Round trip') && location.hash.includes('size=360x640')
                    """)
                try browser.press(WebDriver.Key.escape)  // out of the title's field, where `d` is a letter
                try browser.press("d")
                let state = "return ['story', 'input-title', 'input-price', 'canvas-size', 'canvas-width', 'canvas-height', 'canvas-background', 'canvas-zoom', 'media-type'].map(id => document.getElementById(id).value).concat([document.getElementById('component-page').dataset.panel, document.documentElement.dataset.theme])"
                let before = try browser.execute(state)
                #expect(before == ["plugin:sale", "Round trip", "4.99", "phone", "360", "640", "checker", "150", "text/plain", "right", "dark"], "\(before)")
                let address = try #require(try browser.execute("return location.href").stringValue)
                for part in ["story=sale", "inputs=", "size=360x640", "bg=checker", "zoom=150", "media=text", "theme=dark", "panel=right"] {
                    #expect(address.contains(part), "\(part) in \(address)")
                }
                _ = try browser.execute("localStorage.clear(); sessionStorage.clear()")
                try browser.navigate("about:blank")
                try browser.navigate(address)
                try browser.wait(for: "the reopened page", "return document.body.dataset.stateApplied === 'paywall@1'")
                try browser.wait(for: "the same render", "return (document.getElementById('render-frame-text') || {}).textContent?.includes('Round trip') === true")
                #expect(try browser.execute(state) == before)
                #expect(try browser.execute("return location.href") == .string(address), "the reopened page names itself the same")
                #expect(try browser.execute("return getComputedStyle(document.getElementById('canvas')).zoom === '1' && getComputedStyle(document.getElementById('render-frame-text')).zoom") == "1.5")
                try WorkbenchBrowserTests.saveScreenshot(browser, "address-round-trip")
            }
        }
    }
}
