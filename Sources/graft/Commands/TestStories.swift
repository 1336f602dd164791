import ArgumentParser
import FoundationEssentials
import GraftCommandLine
import GraftHost
import GraftStories
import GraftWebDriver

/// `graft test`: every story of every plugin (or of those named) played, checked and compared with its snapshot.
struct TestStories: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run every story of the plugins on the search path (or of those named) as a test: play its steps, check its expectations, compare its render with its snapshot.",
        discussion: """
            A component's stories are its debugConfig, the stories its plugin declares, and those of story files \
            (NAME.stories.json, docs/Stories.md) in a stories/ folder beside the plugin file or in a --stories \
            folder. Each story gets an instance of its own, made as in every command (isolated and sandboxed unless \
            told otherwise). Its render is compared byte for byte with its snapshot, \
            SNAPSHOTS/PLUGIN_ID/KEY@VERSION/STORY.html; a story without one gets one written (with --ci it fails \
            instead), and --update writes them all. Exits 0 when every story passed, 1 when one failed or a story \
            file could not be used, 2 on error.
            """)

    @Argument(help: ArgumentHelp("Only these plugins' stories, by id (all when none is named).", valueName: "plugin-id"))
    var pluginIDs: [String] = []

    @Option(name: .customLong("stories"), help: ArgumentHelp("A folder of story files, beside those next to each plugin (repeatable).", valueName: "folder"))
    var storyFolders: [String] = []

    @Option(help: ArgumentHelp("Where snapshots are kept.", valueName: "folder"))
    var snapshots = "stories/__snapshots__"

    @Flag(help: "Write every render as its snapshot.")
    var update = false

    @Flag(help: "A story without a snapshot fails instead of getting one written (for CI, where nothing written is kept).")
    var ci = false

    @Option(help: ArgumentHelp("Also write the results as JUnit XML, which CI systems read.", valueName: "file"))
    var junit: String?

    @Flag(name: .customLong("a11y"), help: "Also check each HTML render with axe-core in headless Chromium: a serious or critical finding fails the story.")
    var accessibility = false

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if update, ci { throw ValidationError("--update writes snapshots and --ci refuses to: give one of them.") }
    }

    func run() throws {
        let started = ContinuousClock.now
        let host = options.makeHost()
        for id in pluginIDs where !host.plugins.contains(where: { $0.id == id }) {
            throw CommandFailure(error: GraftError(.pluginNotFound, "no plugin on the search path has the id '\(id)'.", key: id), json: options.json)
        }
        var suite = StorySuite(
            // ./stories (a plugin project's own) whenever it is there; a file read twice is read once.
            host: host, storyFolders: storyFolders + (FileManager.default.fileExists(atPath: "stories") ? ["stories"] : []),
            pluginIDs: pluginIDs.isEmpty ? nil : Set(pluginIDs),
            snapshots: Snapshots(folder: snapshots, mode: update ? .update : ci ? .strict : .compare))
        var browser: WebDriver?
        defer { browser?.quit() }
        if accessibility {
            let axe: String
            do throws(GraftError) { axe = try Axe.source() } catch {
                throw CommandFailure(error: CommandLineError(
                    .accessibilityUnavailable,
                    "--a11y needs axe-core: \(error.message) Scripts/prerequisites.sh --browser installs it, or name an axe.min.js with GRAFT_AXE."),
                    json: options.json)
            }
            do {
                // A browser that reaches no network: a render that navigates or fetches talks to nobody.
                browser = try WebDriver(width: 1280, height: 800, browserArguments: Axe.offlineArguments)
            } catch {
                throw CommandFailure(error: CommandLineError(
                    .accessibilityUnavailable, "--a11y needs Chromium and chromedriver (apt-get install chromium chromium-driver): \(error)"), json: options.json)
            }
            let driver = browser!
            suite.accessibility = { rendering in try Axe.seriousFindings(in: rendering.text, browser: driver, axe: axe) }
        }
        let (cases, problems) = suite.collect()
        var outcomes: [StoryOutcome] = []
        for (number, storyCase) in cases.enumerated() {
            let outcome = suite.run(storyCase, number: number + 1)
            outcomes.append(outcome)
            if !options.json { say(outcome) }
        }
        let failed = outcomes.filter { !$0.passed }.count
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if let junit {
            do {
                try Data(JUnitReport.xml(outcomes, problems: problems, seconds: seconds).utf8).write(to: URL(fileURLWithPath: junit), options: .atomic)
            } catch {
                throw CommandFailure(error: GraftError(.permissionDenied, "could not write the JUnit report \(junit): \(error)", path: junit), json: options.json)
            }
        }
        let written = outcomes.filter { if case .written = $0.snapshot { true } else { false } }.count
        let updated = outcomes.filter { if case .updated = $0.snapshot { true } else { false } }.count
        if options.json {
            Output.json(.object([
                "stories": .list(outcomes.map(Self.json)), "problems": .list(problems.map(\.json)),
                "passed": .number(Double(outcomes.count - failed)), "failed": .number(Double(failed)),
            ]))
        } else {
            for problem in problems { Output.error(problem) }
            var summary = "\(outcomes.count) stor\(outcomes.count == 1 ? "y" : "ies"): \(outcomes.count - failed) passed, \(failed) failed"
            if !problems.isEmpty { summary += "; \(problems.count) story file\(problems.count == 1 ? "" : "s") not used" }
            if written + updated > 0 { summary += " (snapshots: \(written) written, \(updated) updated)" }
            Output.line(summary)
        }
        if failed > 0 || !problems.isEmpty { throw ExitCode(1) }
    }

    private func say(_ outcome: StoryOutcome) {
        let file = outcome.storyCase.file.map { "  (\($0))" } ?? ""
        Output.line("\(outcome.passed ? "✔" : "✘") \(outcome.storyCase.pluginID) \(outcome.storyCase.title)\(file)")
        for failure in outcome.failures { Output.line("    \(failure)") }
    }

    static func json(_ outcome: StoryOutcome) -> GraftValue {
        var snapshot: GraftValue = .null
        switch outcome.snapshot {
        case .matched(let path): snapshot = ["state": "matched", "path": .string(path)]
        case .written(let path): snapshot = ["state": "written", "path": .string(path)]
        case .updated(let path): snapshot = ["state": "updated", "path": .string(path)]
        case .differs(let path, let detail): snapshot = ["state": "differs", "path": .string(path), "detail": .string(detail)]
        case .none: break
        }
        return .object([
            "plugin": .string(outcome.storyCase.pluginID),
            "component": .string("\(outcome.storyCase.component.key)@\(outcome.storyCase.component.version)"),
            "story": .string(outcome.storyCase.story.name), "file": outcome.storyCase.file.map { .string($0) } ?? .null,
            "passed": .bool(outcome.passed), "steps": .list(outcome.steps.map(\.jsonValue)),
            "error": outcome.error.map(\.json) ?? .null, "snapshot": snapshot,
            "failures": .list(outcome.failures.map { .string($0) }), "seconds": .number(outcome.seconds),
        ])
    }
}
