/// "Did you mean …?" for a name nobody registers: the closest registered
/// name within a few edits, so a typo costs one look, not a search.
package enum NearMiss {
    /// ` Did you mean 'luhn'?`, or "" when nothing is close. At most a third
    /// of the name's letters (and at least one) may differ.
    package static func hint(for name: String, among candidates: some Sequence<String>) -> String {
        guard let best = closest(to: name, among: candidates) else { return "" }
        return " Did you mean '\(best)'?"
    }

    package static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        let allowed = max(1, name.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in Set(candidates) where candidate != name {
            let distance = editDistance(Array(name.lowercased()), Array(candidate.lowercased()))
            guard distance <= allowed else { continue }
            if best == nil || distance < best!.distance || (distance == best!.distance && candidate < best!.name) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
