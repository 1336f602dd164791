import GraftHost

/// `action-missing-params`: a flow may leave out any param. Each action is
/// invoked with none, then with each param missing in turn (the others of
/// their declared types), with no payload. It may refuse; it must not crash
/// or hang, and graft.h asks an action that fails to say why (`set_error`).
enum ActionMissingParamsCheck {
    static func run(_ probe: ConformanceProbe) {
        guard let plugin = probe.plugin() else { return }
        if plugin.info.actions.isEmpty { probe.skip("the plugin declares no actions") }
        guard !plugin.info.actions.isEmpty, let host = probe.host else { return }
        for contract in plugin.info.actions {
            let key = ConformanceKey.action(contract)
            let all = Dictionary(uniqueKeysWithValues: contract.params.map { ($0.key, SampleValues.value(of: $0.type)) })
            var variants: [(String, [String: GraftValue])] = [("no params", [:])]
            for param in contract.params where contract.params.count > 1 {
                var params = all
                params.removeValue(forKey: param.key)
                variants.append(("'\(param.key)' missing", params))
            }
            for (what, params) in variants {
                probe.step(key, "invoking it with \(what)")
                do throws(GraftError) {
                    let result = try host.invokeAction("\(contract.key)@\(contract.version)", params: params)
                    if !result.ok, result.error?.hasSuffix("failed without saying why") ?? true {
                        probe.warn(key, expected: "set_error before returning false (invoked with \(what))", got: "false with no reason")
                    }
                } catch {
                    probe.note("\(key) could not be invoked with \(what): \(error.message)")
                }
            }
        }
    }
}
