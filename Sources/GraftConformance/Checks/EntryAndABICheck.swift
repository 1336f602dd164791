import CGraft
import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// `entry-and-abi`: the entry as graft.h describes it, read straight from the
/// image (not through the loader, which stops at the first refusal).
enum EntryAndABICheck {
    static func run(_ probe: ConformanceProbe) {
        if probe.isWebAssembly { return GuestChecks.entryAndABI(probe) }
        let entrySymbol: PluginInspection.EntrySymbol
        do throws(GraftError) {
            entrySymbol = try PluginInspection.entrySymbol(of: probe.file)
        } catch {
            probe.fail("image", expected: "a 64-bit ELF shared object for this machine", got: error.message)
            return
        }
        switch entrySymbol {
        case .function: break
        case .missing:
            probe.fail("graft_entry", expected: "graft_entry exported as a function", got: "no exported graft_entry")
            return
        case .notAFunction(let type):
            probe.fail("graft_entry", expected: "graft_entry exported as a function", got: "a symbol of ELF type \(type) (data)")
            return
        }
        probe.step("graft_entry", "running its constructors (dlopen)")
        // As this child maps any plugin: from memory when it is sandboxed.
        do throws(GraftError) {
            try PluginInspection.withMappingName(of: probe.file) { path in callEntry(mappedAt: path, probe) }
        } catch {
            probe.fail("image", expected: "a name to map the file through", got: error.message)
        }
    }

    /// dlopen, graft_entry, the entry's fields, init, get_factory.
    private static func callEntry(mappedAt path: String, _ probe: ConformanceProbe) {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            probe.fail("image", expected: "dlopen to succeed", got: reason)
            return
        }
        guard let symbol = dlsym(handle, GRAFT_ENTRY_SYMBOL) else {
            probe.fail("graft_entry", expected: "dlsym to find graft_entry", got: "nothing")
            return
        }
        probe.step("graft_entry", "calling graft_entry")
        guard let entry = unsafeBitCast(symbol, to: graft_entry_fn.self)() else {
            probe.fail("entry", expected: "graft_entry to return an entry", got: "NULL")
            return
        }
        let abi = ABIVersion(major: Int(entry.pointee.abi.major), minor: Int(entry.pointee.abi.minor))
        if !abi.isLoadable() {
            probe.fail(
                "entry", expected: "ABI \(ABIVersion.host.major).x with x ≤ \(ABIVersion.host.minor) (this host's \(ABIVersion.host))",
                got: "ABI \(abi)")
            return
        }
        let size = MemoryLayout<graft_plugin_entry_t>.stride
        let declared = Int(entry.pointee.struct_size)
        if declared < size {
            probe.fail("entry", expected: "struct_size = sizeof(graft_plugin_entry_t) = \(size)", got: "\(declared)")
            return  // the fields past `declared` may not exist
        }
        if declared > size {
            probe.warn(
                "entry", expected: "struct_size = sizeof(graft_plugin_entry_t) = \(size)",
                got: "\(declared) (built against a newer graft.h than its ABI version says?)")
        }
        checkStrings(entry.pointee, probe)
        guard let initialize = entry.pointee.`init`, let getFactory = entry.pointee.get_factory else {
            probe.fail("entry", expected: "init and get_factory functions", got: "NULL for \(entry.pointee.`init` == nil ? "init" : "get_factory")")
            return
        }
        let host = HostHandle(path: probe.file.path, logger: probe.logger)
        probe.step("init", "calling init")
        guard initialize(host.pointer) else {
            probe.fail("init", expected: "init to return true", got: "false (the plugin refuses to load)")
            return
        }
        probe.step("get_factory", "asking get_factory for an id it cannot know")
        let unknown = "graft.conformance-no-such-factory/1"
        if getFactory(unknown) != nil {
            probe.fail("get_factory", expected: "NULL for the unknown id '\(unknown)'", got: "a factory")
        }
        withExtendedLifetime(host) {}
    }

    private static func checkStrings(_ entry: graft_plugin_entry_t, _ probe: ConformanceProbe) {
        let id = String(plugin: entry.id)
        if let id, !id.isEmpty {
            if !isReverseDNS(id) {
                probe.fail("entry", expected: "an id in reverse DNS form, such as \"com.acme.widgets\"", got: "\"\(id)\"")
            }
        } else {
            probe.fail("entry", expected: "a non-empty id", got: id == nil ? "NULL" : "\"\"")
        }
        let version = String(plugin: entry.version)
        if let version, !version.isEmpty {
            if !looksLikeVersion(version) {
                probe.warn("entry", expected: "a version such as \"1.4.0\" (digits and dots, then an optional -suffix)", got: "\"\(version)\"")
            }
        } else {
            probe.fail("entry", expected: "a non-empty version", got: version == nil ? "NULL" : "\"\"")
        }
        if String(plugin: entry.name)?.isEmpty ?? true {
            probe.warn("entry", expected: "a human-readable name", got: "none (hosts show the id instead)")
        }
    }

    /// Two or more dot-separated labels of letters, digits, '-' and '_'.
    static func isReverseDNS(_ id: String) -> Bool {
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            !label.isEmpty && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
        }
    }

    /// Starts with digits-and-dots (`1`, `1.4`, `1.4.0`), then anything after `-` or `+`.
    static func looksLikeVersion(_ version: String) -> Bool {
        let core = version.prefix { $0 != "-" && $0 != "+" }
        let parts = core.split(separator: ".", omittingEmptySubsequences: false)
        return parts.allSatisfy { part in !part.isEmpty && part.allSatisfy { ("0"..."9").contains($0) } }
    }
}
