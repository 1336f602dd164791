import FoundationEssentials
import GraftHost
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// axe-core, the engine browsers' accessibility audits use, over one component's HTML in headless Chromium. It comes
/// from PyPI's axe-playwright-python, which carries it as a plain `axe.min.js` (`Scripts/prerequisites.sh --browser`
/// installs it), or from the file `GRAFT_AXE` names.
public enum Axe {
    /// axe.min.js. Errors (`invalid_config`) name the file `GRAFT_AXE` gives and why it does not read, or say that
    /// axe-playwright-python is not installed.
    public static func source() throws(GraftError) -> String {
        if let given = ProcessInfo.processInfo.environment["GRAFT_AXE"] {
            return try BoundedFile.text(at: given, what: "axe.min.js (GRAFT_AXE)", code: .invalidConfig)
        }
        guard let folder = pythonPackageFolder() else {
            throw GraftError(.invalidConfig, "axe-core is not installed: no axe-playwright-python for python3 (pip install --no-deps axe-playwright-python), and GRAFT_AXE is not set.")
        }
        return try BoundedFile.text(at: folder + "/axe.min.js", what: "axe.min.js", code: .invalidConfig)
    }

    /// Where pip put axe_playwright_python: asked of python3 itself (pyenv, a venv and Debian each put it elsewhere),
    /// its answer written to a file, since the spawned child's output goes to /dev/null.
    private static func pythonPackageFolder() -> String? {
        let answer = FilePaths.joined(FilePaths.temporaryFolder, "graft-axe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { unlink(answer) }
        let script = "import importlib.util, sys; s = importlib.util.find_spec('axe_playwright_python'); open(sys.argv[1], 'w').write(s.submodule_search_locations[0] if s else '')"
        guard let python = try? SpawnedProcess("/usr/bin/env", ["python3", "-c", script, answer]) else { return nil }
        let deadline = ContinuousClock.now + .seconds(30)
        while python.isRunning {
            if ContinuousClock.now > deadline { python.stop(grace: .milliseconds(100)); return nil }
            usleep(10_000)
        }
        guard let folder = try? BoundedFile.text(at: answer, what: "python's answer", code: .invalidConfig), !folder.isEmpty else { return nil }
        return folder
    }

    /// Rules that judge a whole page (its title, language, landmarks, a skip link), not a component placed in one:
    /// off when a component's render is checked alone.
    static let pageRules = ["document-title", "html-has-lang", "html-lang-valid", "landmark-one-main", "page-has-heading-one", "region", "bypass"]

    /// Chromium's switches for a browser that checks renders: no network beyond this machine (a dead proxy, no name
    /// lookups), so that markup that navigates or fetches reaches nobody.
    public static let offlineArguments = ["--proxy-server=http://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"]

    /// axe's serious and critical findings over `html`, a component's render, each as one line: the impact, the
    /// rule, what it asks, and the first elements that break it. The render sits in a frame of a page of its own,
    /// sandboxed without an origin and unable to navigate its page, under a policy that lets only scripts with a
    /// nonce the component cannot know run and loads no frame elsewhere: the component's own scripts never run, and
    /// markup that would navigate (a refresh) is refused. axe reads the document's real body, whatever an element
    /// named `body` makes `document.body` say.
    public static func seriousFindings(in html: String, browser: WebDriver, axe: String) throws -> [String] {
        let nonce = (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max), radix: 16) }.joined()
        let policy = "default-src 'none'; frame-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; script-src 'nonce-\(nonce)'"
        let runner = """
            (function (nonce, rules) {
              const off = {};
              for (const rule of rules) off[rule] = { enabled: false };
              const body = Object.getOwnPropertyDescriptor(Document.prototype, 'body').get.call(document);
              axe.run(body, { rules: off, resultTypes: ['violations'] })
                .then(result => parent.postMessage({ nonce, found: result.violations
                  .filter(v => v.impact === 'serious' || v.impact === 'critical')
                  .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')})`) }, '*'))
                .catch(error => parent.postMessage({ nonce, found: [`axe failed: ${error}`] }, '*'));
            })(\(GraftValue.string(nonce).jsonText), \(GraftValue.list(pageRules.map { .string($0) }).jsonText));
            """
        let inner = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="\(policy)">\
            <title>a component's render</title></head><body>\(html)<script nonce="\(nonce)">\(axe.replacing("</script", with: "<\\/script"))
            \(runner)</script></body></html>
            """
        let page = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="\(policy)">\
            <title>accessibility check</title></head><body>\
            <iframe id="render" title="the render" sandbox="allow-scripts" style="width:1024px;height:768px;border:0" srcdoc="\(HTMLText.escaped(inner))"></iframe>\
            <script nonce="\(nonce)">window.graftAxe = null; addEventListener('message', event => {\
            if (event.source === document.getElementById('render').contentWindow && event.data && event.data.nonce === \(GraftValue.string(nonce).jsonText)) window.graftAxe = event.data.found; });</script>\
            </body></html>
            """
        let file = FilePaths.joined(FilePaths.temporaryFolder, "graft-render-\(getpid())-\(nonce).html")
        guard FileManager.default.createFile(atPath: file, contents: Data(page.utf8)) else {
            throw WebDriver.Failure(description: "cannot write the check's page \(file)")
        }
        defer { unlink(file) }
        try browser.navigate("file://\(file)")
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let found = try browser.execute("return location.href === arguments[0] ? window.graftAxe : ['the check\\'s page was navigated away']", [.string("file://\(file)")])
            if let lines = found.listValue { return lines.compactMap(\.stringValue) }
            usleep(20_000)
        }
        return ["the check did not finish in 20 s (the render may hold markup that swallowed the check's script)"]
    }
}
