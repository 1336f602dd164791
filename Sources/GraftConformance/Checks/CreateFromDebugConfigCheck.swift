import GraftHost

/// `create-from-debug-config`: every component is created from its
/// debugConfig, in an unbounded and in a bounded container; and the factory
/// refuses what it does not list (graft.h: create "returns NULL on failure"),
/// since a host relies on that to tell a missing version from a present one.
enum CreateFromDebugConfigCheck {
    static let sizes = [ContainerSize.unbounded, ContainerSize(width: 40, height: 10)]

    static func run(_ probe: ConformanceProbe) {
        let components = probe.componentsToCheck()
        let listed = Set(components.map(\.contract.reference))
        for component in components {
            let key = ConformanceKey.component(component.contract)
            for size in sizes {
                probe.step(key, "creating it from its debugConfig in a \(Int(size.width))×\(Int(size.height)) container")
                switch RawInstance.create(component, inputs: component.contract.debugConfig, size: size, probe: probe) {
                case .instance(let instance):
                    probe.step(key, "destroying it")
                    instance.destroy()
                case .refused:
                    probe.fail(
                        key, expected: "an instance from the debugConfig \(GraftValue.object(component.contract.debugConfig).jsonText) in a \(Int(size.width))×\(Int(size.height)) container",
                        got: "NULL")
                case .incomplete:
                    probe.fail(key, expected: "an instance with render and destroy", got: "an instance whose render or destroy is NULL")
                }
            }
            // A version the factory does not list, then a key it does not list.
            var unknownVersion = component.contract.version + 1000
            while listed.contains(ComponentReference(key: component.contract.key, version: unknownVersion)) { unknownVersion += 1 }
            for (askedKey, version) in [(component.contract.key, unknownVersion), ("graft-conformance-no-such-key", component.contract.version)] {
                probe.step(key, "asking create for \(askedKey)@\(version), which the factory does not list")
                switch RawInstance.create(component, inputs: component.contract.debugConfig, key: askedKey, version: version, probe: probe) {
                case .refused: break
                case .instance(let instance):
                    instance.destroy()
                    probe.fail(key, expected: "create(\"\(askedKey)\", \(version)) = NULL: the factory does not list it", got: "an instance")
                case .incomplete:
                    probe.fail(key, expected: "create(\"\(askedKey)\", \(version)) = NULL: the factory does not list it", got: "an incomplete instance")
                }
            }
        }
    }
}
