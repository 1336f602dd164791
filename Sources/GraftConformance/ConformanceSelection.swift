import GraftHost

/// Which tests a run includes: all, or those `--only` names, less those
/// `--skip` names. An unknown name is an `unknown_test` error that names the
/// closest test, so a typo costs one look.
package enum ConformanceSelection {
    package static func tests(only: [String], skip: [String]) throws(GraftError) -> [ConformanceTest] {
        let chosen = try Set(only.map(resolve))
        let skipped = try Set(skip.map(resolve))
        let tests = ConformanceTest.allCases.filter { (chosen.isEmpty || chosen.contains($0)) && !skipped.contains($0) }
        // A run of no test would pass, and say nothing.
        if tests.isEmpty { throw GraftError(.invalidConfig, "--only and --skip leave no conformance test to run.") }
        return tests
    }

    static func resolve(_ name: String) throws(GraftError) -> ConformanceTest {
        if let test = ConformanceTest(rawValue: name) { return test }
        let names = ConformanceTest.allCases.map(\.name)
        // A unique part ("render", "symbols") is the likeliest meaning; else the nearest spelling of a
        // name or of its leading words ("rendr" is near "render", so render-text-and-html).
        let containing = names.filter { $0.contains(name.lowercased()) }
        var owners: [String: Set<String>] = [:]
        for full in names {
            let words = full.split(separator: "-")
            for count in 1...words.count { owners[words.prefix(count).joined(separator: "-"), default: []].insert(full) }
        }
        let leads = owners.compactMapValues { $0.count == 1 ? $0.first : nil }
        let guess = !name.isEmpty && containing.count == 1
            ? containing[0] : NearMiss.closest(to: name.lowercased(), among: leads.keys).flatMap { leads[$0] }
        let hint = guess.map { " Did you mean '\($0)'?" } ?? ""
        throw GraftError(
            .unknownTest,
            "no conformance test is named '\(name)'.\(hint) `graft check --list-tests` lists them: \(names.joined(separator: ", ")).")
    }
}
