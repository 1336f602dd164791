import GraftHost

/// The outcomes as JUnit XML, which CI systems read: one `testsuite` per component, one `testcase` per story, a
/// `failure` for each story that failed, and an `error` for each story file that could not be used.
public enum JUnitReport {
    public static func xml(_ outcomes: [StoryOutcome], problems: [GraftError], seconds: Double) -> String {
        var groups: [(name: String, outcomes: [StoryOutcome])] = []
        for outcome in outcomes {
            let name = "\(outcome.storyCase.pluginID)/\(outcome.storyCase.component.key)@\(outcome.storyCase.component.version)"
            if let at = groups.firstIndex(where: { $0.name == name }) { groups[at].outcomes.append(outcome) } else { groups.append((name, [outcome])) }
        }
        let failures = outcomes.filter { !$0.passed }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"graft test\" tests=\"\(outcomes.count + problems.count)\" failures=\"\(failures)\" errors=\"\(problems.count)\" time=\"\(time(seconds))\">\n"
        for group in groups {
            let failed = group.outcomes.filter { !$0.passed }.count
            let total = group.outcomes.reduce(0) { $0 + $1.seconds }
            xml += "  <testsuite name=\"\(escaped(group.name))\" tests=\"\(group.outcomes.count)\" failures=\"\(failed)\" errors=\"0\" time=\"\(time(total))\">\n"
            for outcome in group.outcomes {
                let file = outcome.storyCase.file.map { " file=\"\(escaped($0))\"" } ?? ""
                xml += "    <testcase classname=\"\(escaped(group.name))\" name=\"\(escaped(outcome.storyCase.story.name))\"\(file) time=\"\(time(outcome.seconds))\""
                let said = outcome.failures
                if said.isEmpty { xml += "/>\n"; continue }
                let type = outcome.error?.code.rawValue
                    ?? (outcome.steps.contains { !$0.passed } ? "story_failed" : outcome.accessibility.isEmpty ? "snapshot_mismatch" : "inaccessible_render")
                xml += ">\n      <failure type=\"\(type)\" message=\"\(escaped(said[0]))\">\(escaped(said.joined(separator: "\n")))</failure>\n    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        if !problems.isEmpty {
            xml += "  <testsuite name=\"story files\" tests=\"\(problems.count)\" failures=\"0\" errors=\"\(problems.count)\" time=\"0\">\n"
            for problem in problems {
                xml += "    <testcase classname=\"story files\" name=\"\(escaped(problem.path ?? problem.key ?? "story file"))\" time=\"0\">\n"
                xml += "      <error type=\"\(problem.code.rawValue)\" message=\"\(escaped(problem.message))\"/>\n    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    static func time(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// Text for an attribute or an element: markup characters escaped, and characters XML 1.0 cannot hold at all
    /// (controls other than tab and line breaks) written as U+FFFD.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out += "&#\(scalar.value);"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
