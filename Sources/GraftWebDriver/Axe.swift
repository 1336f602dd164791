import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// axe-core, the engine browsers' accessibility audits use, over one component's HTML in headless Chromium. It comes
/// from PyPI's axe-playwright-python, which carries it as a plain `axe.min.js` (`Scripts/prerequisites.sh --browser`
/// installs it), or from the file `GRAFT_AXE` names.
public enum Axe {
    /// axe.min.js, or nil when neither `GRAFT_AXE` nor axe-playwright-python has it.
    public static func source() -> String? {
        if let given = ProcessInfo.processInfo.environment["GRAFT_AXE"] {
            return try? BoundedFile.text(at: given, what: "axe.min.js", code: .invalidConfig)
        }
        guard let folder = pythonPackageFolder() else { return nil }
        return try? BoundedFile.text(at: folder + "/axe.min.js", what: "axe.min.js", code: .invalidConfig)
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

    /// axe's serious and critical findings over `html`, a component's render, each as one line: the impact, the
    /// rule, what it asks, and the first elements that break it. The render is loaded as a page of its own whose
    /// policy lets only axe's script run (a nonce the component cannot know), so that its own scripts never do.
    public static func seriousFindings(in html: String, browser: WebDriver, axe: String) throws -> [String] {
        let nonce = (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max), radix: 16) }.joined()
        let page = """
            <!doctype html><html lang="en"><head><meta charset="utf-8">\
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; script-src 'nonce-\(nonce)'">\
            <title>a component's render</title></head><body>\(html)<script nonce="\(nonce)">\(axe)</script></body></html>
            """
        let file = FilePaths.joined(FilePaths.temporaryFolder, "graft-render-\(getpid())-\(nonce).html")
        guard FileManager.default.createFile(atPath: file, contents: Data(page.utf8)) else {
            throw WebDriver.Failure(description: "cannot write \(file)")
        }
        defer { unlink(file) }
        try browser.navigate("file://\(file)")
        let found = try browser.executeAsync("""
            const done = arguments[arguments.length - 1];
            if (typeof axe !== 'object') { done(['axe did not load in the render\\'s page']); return; }
            const rules = {};
            for (const rule of arguments[0]) rules[rule] = { enabled: false };
            axe.run(document.body, { rules, resultTypes: ['violations'] })
              .then(result => done(result.violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')})`)))
              .catch(error => done([`axe failed: ${error}`]));
            """, [.list(pageRules.map { .string($0) })])
        return found.listValue?.compactMap(\.stringValue) ?? ["axe answered \(found.jsonText)"]
    }
}
