import GraftHost

/// `graft bench registry`: `resolve` against a plain dictionary lookup of the
/// same references.
enum RegistryBench {
    static func run(host: GraftHost, iterations: Int) -> BenchPart {
        var part = BenchPart(name: "registry lookup")
        let references = host.registry.all.map(\.reference)
        guard !references.isEmpty else {
            part.notes.append("no components on the plugin path")
            return part
        }
        let dictionary = Dictionary(uniqueKeysWithValues: references.enumerated().map { ($1, $0) })
        let count = references.count
        let measured = Stopwatch.compare(iterations: iterations, [
            { index in blackHole(dictionary[references[index % count]]) },
            { index in blackHole(try? host.resolve(references[index % count])) },
        ])
        part.figure("dictionary_ns", measured.nanoseconds[0])
        part.figure("resolve_ns", measured.nanoseconds[1])
        part.figure("components", Double(count), "")
        part.ratio("resolve / dictionary", measured.ratios[1])
        return part
    }
}
