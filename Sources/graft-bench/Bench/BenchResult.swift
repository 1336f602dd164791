import GraftHost
import GraftSupport

/// One part of `graft bench`: named figures and the ratios that matter.
struct BenchPart {
    var name: String
    /// The part as `graft bench` names it (`load`), which its targets name.
    var key = ""
    /// Figures in the order printed: (key, value, unit).
    var figures: [(key: String, value: Double, unit: String)] = []
    /// Ratios; their targets are in `BenchTarget.table`.
    var ratios: [(key: String, value: Double)] = []
    var notes: [String] = []

    mutating func figure(_ key: String, _ value: Double, _ unit: String = "ns") {
        figures.append((key, value, unit))
    }

    mutating func ratio(_ key: String, _ value: Double) {
        ratios.append((key, value))
    }

    var json: GraftValue {
        var object: [String: GraftValue] = [:]
        for figure in figures { object[figure.key] = .number(Self.rounded(figure.value)) }
        object["ratios"] = .object(Dictionary(uniqueKeysWithValues: ratios.map { ($0.key, GraftValue.number(Self.rounded($0.value))) }))
        if !notes.isEmpty { object["notes"] = .list(notes.map(GraftValue.string)) }
        return .object(object)
    }

    /// The part as text, each ratio with its target from `targets`.
    func text(targets: [BenchTarget]) -> String {
        var lines = ["\(name):"]
        for figure in figures {
            lines.append("  \(figure.key.padded(toLength: 36)) \(Self.format(figure.value)) \(figure.unit)")
        }
        for ratio in ratios {
            let bound = targets.last { $0.part == key && $0.ratio == ratio.key }?.bound
            let target = bound.map { "  (target \($0))" } ?? ""
            lines.append("  \(ratio.key.padded(toLength: 36)) \(Self.format(ratio.value))×\(target)")
        }
        for note in notes { lines.append("  note: \(note)") }
        return lines.joined(separator: "\n")
    }

    static func rounded(_ value: Double) -> Double {
        value.isFinite ? (value * 100).rounded() / 100 : -1
    }

    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        return value >= 100 ? String(Int(value.rounded())) : decimal(value, places: 2)
    }
}
