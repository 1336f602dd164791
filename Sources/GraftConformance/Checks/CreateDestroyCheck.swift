import GraftHost

/// `create-destroy-1000`: an instance that leaks grows every host that
/// renders it for long; 1,000 creates and destroys of each component may
/// grow this process's resident memory by at most 1 MiB, measured after a
/// warm-up (first-use allocations of the plugin and the host are not leaks).
enum CreateDestroyCheck {
    static let cycles = 1000
    static let warmUp = 50
    static let allowedGrowth = 1 << 20

    static func run(_ probe: ConformanceProbe) {
        let components = probe.componentsToCheck()
        for component in components {
            let key = ConformanceKey.component(component.contract)
            probe.step(key, "creating and destroying it \(warmUp + cycles) times")
            let inputs = component.contract.debugConfig
            // Inputs built once, so only the plugin's allocations and the host's per-instance ones count.
            let arena = CArena()
            let value = arena.cValuePointer(.object(inputs))
            var before = 0
            var refused = 0
            for cycle in 0..<(warmUp + cycles) {
                if cycle == warmUp { before = ResidentMemory.bytes() }
                switch RawInstance.create(component, inputs: { _ in value }, probe: probe) {
                case .instance(let instance): instance.destroy()
                default: refused += 1
                }
            }
            let growth = ResidentMemory.bytes() - before
            if refused > 0 {
                probe.note("\(key): create returned no usable instance \(refused) of \(warmUp + cycles) times")
            }
            probe.note("\(key): resident memory grew by \(growth / 1024) KiB over \(cycles) creates and destroys")
            if growth > allowedGrowth {
                probe.fail(
                    key, expected: "at most \(allowedGrowth >> 10) KiB more resident memory after \(cycles) creates and destroys",
                    got: "\(growth >> 10) KiB more (about \(growth / cycles) bytes per instance)")
            }
        }
    }
}
