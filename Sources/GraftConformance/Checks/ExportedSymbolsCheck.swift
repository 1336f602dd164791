import GraftHost

/// `exported-symbols`: a plugin's other exports share one namespace with the
/// host and every other plugin a dynamic loader resolves against (a C helper
/// named `parse` or `log` can bind to another library's). Only graft_entry
/// is needed; anything else is a warning. Compile with
/// `-fvisibility=hidden` and mark graft_entry `GRAFT_EXPORT`.
enum ExportedSymbolsCheck {
    /// What linkers define in every shared object.
    static let linkerSymbols: Set<String> = ["_init", "_fini", "_edata", "_end", "__bss_start", "_DYNAMIC", "_GLOBAL_OFFSET_TABLE_"]

    static func run(_ probe: ConformanceProbe) {
        if probe.isWebAssembly { return GuestChecks.exports(probe) }
        let exports: [String]
        do throws(GraftError) {
            exports = try PluginInspection.exportedSymbols(of: probe.file)
        } catch {
            probe.fail("image", expected: "a 64-bit ELF shared object for this machine", got: error.message)
            return
        }
        let extra = exports.filter { $0 != "graft_entry" && !linkerSymbols.contains($0) }.sorted()
        probe.note("\(exports.count) defined dynamic symbol(s)")
        guard !extra.isEmpty else { return }
        let shown = extra.prefix(8).joined(separator: ", ")
        probe.warn(
            "image", expected: "no exported symbol but graft_entry (build with -fvisibility=hidden)",
            got: "\(extra.count) more: \(shown)\(extra.count > 8 ? ", …" : "")")
    }
}
