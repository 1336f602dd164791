/// `scan-time`: every host scans a plugin it has not seen before using it
/// (graft.h: init "must be fast and must not block"). Loading it as the
/// scanner does — constructors, graft_entry, the ABI check, init, every
/// descriptor, the native signatures prepared — must take under 100 ms.
enum ScanTimeCheck {
    static let budget = Duration.milliseconds(100)

    static func run(_ probe: ConformanceProbe) {
        guard probe.plugin() != nil else { return }
        let took = probe.load.duration
        let milliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
        probe.note("loading took \((milliseconds * 10).rounded() / 10) ms")
        if took >= budget {
            probe.fail("plugin", expected: "loading (constructors, graft_entry, init, descriptors) under 100 ms", got: "\((milliseconds * 10).rounded() / 10) ms")
        }
    }
}
