import ArgumentParser
import GraftDebugger

import GraftCommandLine
import GraftHost
import GraftSupport

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every plugin on the search path with its components, validators and actions, then the plugins that failed to load.")

    @Flag(help: "List only the plugin files in quarantine: those that crashed or hung the scanner.")
    var quarantined = false

    @OptionGroup var options: GlobalOptions

    func run() throws {
        ListRequest(quarantined: quarantined, settings: options.settings).run()
    }
}

/// What `graft list` was asked, however its arguments were read.
struct ListRequest: Equatable {
    var quarantined = false
    var settings = HostSettings()

    func run() {
        let host = settings.makeHost()
        var report = PluginReport(host: host)
        if quarantined {
            let held = Set(host.quarantined.map(\.path))
            report = PluginReport(
                plugins: [], failures: report.failures.filter { held.contains(FilePaths.resolvingSymlinks($0.path)) })
        }
        Output.line(settings.json ? report.jsonText : report.text)
    }
}

extension ListRequest {
    /// `graft list` in the forms scripts and editors run again and again:
    /// flags and `--plugin-path` values only. Building ArgumentParser's model
    /// of the commands (reflection over every option's type) takes longer
    /// than listing 200 cached plugins, so these forms are read here;
    /// anything else (help, other options, a value that looks like an
    /// option, a flag given twice, a mistake) gets nil and goes to
    /// ArgumentParser, which stays the parser of record: GraftCommandTests
    /// check that both read every form accepted here the same way.
    private static let repeatable = ["--plugin-path", "--publisher", "--revoked-key"]

    init?(quick arguments: [String]) {
        guard arguments.first == "list" else { return nil }
        var seen: Set<String> = []
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            // The repeatable options with a value: search folders, and a
            // signed host's publishers and revoked keys.
            if let option = Self.repeatable.first(where: { argument == $0 || argument.hasPrefix($0 + "=") }) {
                let value: String
                if argument == option {
                    guard index < arguments.count else { return nil }
                    value = arguments[index]
                    index += 1
                } else {
                    value = String(argument.dropFirst(option.count + 1))
                }
                guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
                switch option {
                case "--plugin-path": settings.pluginPaths.append(value)
                case "--publisher": settings.publishers.append(value)
                default: settings.revokedKeys.append(value)
                }
                continue
            }
            guard seen.insert(argument).inserted else { return nil }
            switch argument {
            case "--quarantined": quarantined = true
            case "--json": settings.json = true
            case "--only-plugin-path": settings.onlyPluginPath = true
            case "--no-cache": settings.noCache = true
            case "--allow-untrusted": settings.allowUntrusted = true
            case "--no-scanner": settings.noScanner = true
            case "--locked": settings.locked = true
            case "--in-process": settings.inProcess = true
            case "--require-signatures": settings.requireSignatures = true
            default: return nil
            }
        }
    }
}
