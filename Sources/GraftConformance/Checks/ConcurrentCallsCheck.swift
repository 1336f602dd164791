import CGraft
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import GraftHost
import GraftSupport
import Synchronization

/// `concurrent-calls`: graft.h marks graft_entry, get_factory, the factories'
/// count, get_descriptor and create, validators and actions [thread-safe],
/// and lets different instances run on different threads. Four threads make
/// those calls at once, each with its own instances, and must get what one
/// thread alone got (a plugin that shares a scratch buffer or a counter
/// without a lock gives itself away here, or crashes).
enum ConcurrentCallsCheck {
    static let threads = 4
    static let rounds = 200

    /// What one thread alone saw; `@unchecked Sendable` because it holds the
    /// plugin's C pointers, which graft.h lets any thread use for these calls.
    struct Baseline: @unchecked Sendable {
        var entryFunction: graft_entry_fn
        var entry: UnsafePointer<graft_plugin_entry_t>
        var factories: [(id: String, pointer: UnsafeRawPointer?)]
        var counts: [String: UInt32]
        /// Each component's text/plain render, when two renders agreed.
        var renders: [(component: RegisteredComponent, text: [UInt8]?)]
        var validations: [(reference: String, key: String, params: [String], valid: Bool)]
        var actions: [(reference: String, key: String, params: [String: GraftValue], ok: Bool)]
    }

    static func run(_ probe: ConformanceProbe) {
        if probe.isWebAssembly {
            // One call at a time, by design (docs/WasmABI.md): there is nothing concurrent to test.
            return probe.skip("a WebAssembly guest's calls run one at a time: the host holds its lock around each")
        }
        guard let plugin = probe.plugin(), let host = probe.host, let image = try? plugin.mapped(), let entry = image.entry,
            let handle = image.handle, let symbol = dlsym(handle, GRAFT_ENTRY_SYMBOL)
        else { return }
        probe.step("plugin", "recording what one thread gets")
        guard let baseline = baseline(plugin, host: host, entry: entry, entryFunction: unsafeBitCast(symbol, to: graft_entry_fn.self), probe)
        else { return }
        probe.step("plugin", "calling it from \(threads) threads at once (\(rounds) rounds each)")
        let reported = Locked<Set<String>>([])
        let ready = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        for thread in 0..<threads {
            startThread(named: "graft.conformance.\(thread)") {
                // Start together, so that the calls overlap.
                ready.add(1, ordering: .acquiringAndReleasing)
                while ready.load(ordering: .acquiring) < threads { sched_yield() }
                for _ in 0..<rounds {
                    round(baseline, host: host, probe: probe) { key, expected, actual in
                        let first = reported.withLock { $0.insert(key).inserted }
                        if first { probe.fail(key, expected: expected, got: actual) }
                    }
                }
                done.signal()
            }
        }
        for _ in 0..<threads { done.wait() }
        probe.note("\(threads) threads × \(rounds) rounds over \(baseline.renders.count) component(s), \(baseline.validations.count) validator(s), \(baseline.actions.count) action(s)")
    }

    private static func baseline(
        _ plugin: LoadedPlugin, host: GraftHost, entry: UnsafePointer<graft_plugin_entry_t>, entryFunction: graft_entry_fn,
        _ probe: ConformanceProbe
    ) -> Baseline? {
        guard let getFactory = entry.pointee.get_factory else { return nil }
        let ids = [GRAFT_COMPONENT_FACTORY_ID, GRAFT_VALIDATOR_FACTORY_ID, GRAFT_ACTION_FACTORY_ID]
        let factories = ids.map { (id: $0, pointer: getFactory($0).map(UnsafeRawPointer.init)) }
        var counts: [String: UInt32] = [:]
        for (id, pointer) in factories { if let pointer, let count = count(id, pointer) { counts[id] = count } }
        var renders: [(RegisteredComponent, [UInt8]?)] = []
        for component in probe.components(of: plugin) {
            let first = render(component, probe), second = render(component, probe)
            // Components that cannot be created alone are create-from-debug-config's finding.
            guard let first else { continue }
            renders.append((component, first == second ? first : nil))
        }
        var validations: [(String, String, [String], Bool)] = []
        for contract in plugin.info.validators {
            let reference = "\(contract.name)@\(contract.version)"
            let params = contract.params.map { SampleValues.paramText(for: $0.type) }
            if let result = try? host.validate(reference, value: "a", params: params) {
                validations.append((reference, ConformanceKey.validator(contract), params, result.isValid))
            }
        }
        var actions: [(String, String, [String: GraftValue], Bool)] = []
        for contract in plugin.info.actions {
            let reference = "\(contract.key)@\(contract.version)"
            let params = Dictionary(uniqueKeysWithValues: contract.params.map { ($0.key, SampleValues.value(of: $0.type)) })
            let first = try? host.invokeAction(reference, params: params), second = try? host.invokeAction(reference, params: params)
            if let first, let second, first.ok == second.ok {
                actions.append((reference, ConformanceKey.action(contract), params, first.ok))
            }
        }
        return Baseline(
            entryFunction: entryFunction, entry: entry, factories: factories, counts: counts, renders: renders,
            validations: validations, actions: actions)
    }

    private static func count(_ id: String, _ factory: UnsafeRawPointer) -> UInt32? {
        switch id {
        case GRAFT_COMPONENT_FACTORY_ID:
            let factory = factory.assumingMemoryBound(to: graft_component_factory_t.self)
            return factory.pointee.count?(factory)
        case GRAFT_VALIDATOR_FACTORY_ID:
            let factory = factory.assumingMemoryBound(to: graft_validator_factory_t.self)
            return factory.pointee.count?(factory)
        default:
            let factory = factory.assumingMemoryBound(to: graft_action_factory_t.self)
            return factory.pointee.count?(factory)
        }
    }

    /// The component's text/plain render from its debugConfig; nil when it cannot be created or render fails.
    private static func render(_ component: RegisteredComponent, _ probe: ConformanceProbe) -> [UInt8]? {
        guard case .instance(let instance) = RawInstance.create(component, inputs: component.contract.debugConfig, probe: probe)
        else { return nil }
        defer { instance.destroy() }
        let output = instance.render("text/plain")
        return output.ok ? output.bytes : nil
    }

    /// One round of every call, on one thread; `mismatch(key, expected, actual)` for each difference.
    private static func round(
        _ baseline: Baseline, host: GraftHost, probe: ConformanceProbe, mismatch: (String, String, String) -> Void
    ) {
        if baseline.entryFunction() != baseline.entry {
            mismatch("graft_entry", "the same entry on every call", "another pointer")
        }
        for (id, pointer) in baseline.factories {
            let again = baseline.entry.pointee.get_factory?(id).map(UnsafeRawPointer.init)
            if again != pointer { mismatch("get_factory", "the same factory for \(id) on every call", again == nil ? "NULL" : "another pointer") }
            if let again, let expected = baseline.counts[id], let counted = count(id, again), counted != expected {
                mismatch("\(id)", "count() = \(expected), as on one thread", "\(counted)")
            }
        }
        for (component, text) in baseline.renders {
            let key = ConformanceKey.component(component.contract)
            switch RawInstance.create(component, inputs: component.contract.debugConfig, probe: probe) {
            case .instance(let instance):
                let output = instance.render("text/plain")
                instance.destroy()
                if !output.ok {
                    mismatch(key, "render to return true, as on one thread", "false while other threads called the plugin")
                } else if let text, output.bytes != text {
                    mismatch(
                        key, "the render one thread alone got (\(String(decoding: text.prefix(80), as: UTF8.self)))",
                        "\(String(decoding: output.bytes.prefix(80), as: UTF8.self)) while other threads called the plugin")
                }
            default:
                mismatch(key, "create to give an instance, as on one thread", "NULL while other threads called create")
            }
        }
        for (reference, key, params, valid) in baseline.validations {
            let result = try? host.validate(reference, value: "a", params: params)
            if result?.isValid != valid {
                mismatch(key, "\(valid ? "valid" : "invalid") for \"a\", as on one thread", result.map { $0.isValid ? "valid" : "invalid" } ?? "an error")
            }
        }
        for (reference, key, params, ok) in baseline.actions {
            let result = try? host.invokeAction(reference, params: params)
            if result?.ok != ok {
                mismatch(key, "ok = \(ok), as on one thread", result.map { "ok = \($0.ok)" } ?? "an error")
            }
        }
    }
}
