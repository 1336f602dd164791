import GraftHost

/// `hostile-inputs`: what a flow or a broken host may really send. Each
/// component is created (and, if created, rendered as text/plain) from its
/// debugConfig changed one way at a time. graft.h lets create return NULL
/// and render return false; it does not let the plugin crash or hang, which
/// the supervisor sees and reports with the step named here.
enum HostileInputsCheck {
    static let undeclaredKey = "graft_conformance_undeclared"

    static func run(_ probe: ConformanceProbe) {
        let components = probe.componentsToCheck()
        for component in components {
            let key = ConformanceKey.component(component.contract)
            var refused: [String] = []
            for (what, inputs) in variants(of: component.contract) {
                probe.step(key, "creating it with \(what)")
                switch RawInstance.create(component, inputs: { inputs.cValue(in: $0) }, probe: probe) {
                case .instance(let instance):
                    probe.step(key, "rendering it (text/plain) after creating it with \(what)")
                    _ = instance.render("text/plain")
                    probe.step(key, "destroying it after creating it with \(what)")
                    instance.destroy()
                case .refused, .incomplete:
                    refused.append(what)
                }
            }
            if !refused.isEmpty { probe.note("\(key): create refused \(refused.joined(separator: "; ")) (allowed)") }
        }
    }

    /// Each hostile change of the debugConfig, named for the report.
    static func variants(of contract: ComponentContract) -> [(String, RawInputs)] {
        let base = RawInputs(contract.debugConfig)
        var variants: [(String, RawInputs)] = [("no inputs at all", RawInputs([:]))]
        var undeclared = base
        undeclared.set(undeclaredKey, .value(.string("surprise")))
        variants.append(("an undeclared input '\(undeclaredKey)'", undeclared))
        for input in contract.inputs {
            var wrong = base
            let value = SampleValues.wrongValue(for: input.type)
            wrong.set(input.key, .value(value))
            variants.append(("'\(input.key)' (\(input.type.rawValue)) given a \(value.type.rawValue), \(value.jsonText)", wrong))
            var missing = base
            missing.remove(input.key)
            variants.append(("'\(input.key)' missing", missing))
            guard input.type == .string else { continue }
            var huge = base
            huge.set(input.key, .value(.string(SampleValues.huge)))
            variants.append(("'\(input.key)' a 16 MiB string", huge))
            var notUTF8 = base
            notUTF8.set(input.key, .bytes(SampleValues.notUTF8))
            variants.append(("'\(input.key)' a string that is not UTF-8", notUTF8))
        }
        return variants
    }
}
