import GraftSupport
import Logging

/// The result of checking one plugin file on its own: what it declares when
/// it loads, and every problem found otherwise.
public struct PluginCheck: Sendable {
    public package(set) var path: String
    /// Set when the plugin loaded and passed every check.
    public package(set) var plugin: PluginDescription?
    /// Every problem found, in the order the loader met them.
    public package(set) var problems: [GraftError]

    public var isClean: Bool { problems.isEmpty }
}

extension GraftHost {
    /// Loads `path` alone, outside any registry, and reports every problem:
    /// the file and its trust, the ELF image, the entry and ABI, every
    /// descriptor, the debugConfigs against the inputs, duplicates inside the
    /// plugin, native signatures libffi cannot prepare, and a crash or hang
    /// while loading. The load happens in a scanner child unless `scanning`
    /// says otherwise (or none is found), so a crash is reported, not suffered.
    public static func check(
        pluginAt path: String, scanning: Scanning = Scanning(), sandbox: SandboxSettings = SandboxSettings(),
        logger: Logger = Logger(label: "graft.check")
    ) -> PluginCheck {
        let file: PluginFile
        do throws(GraftError) {
            file = try PluginFile(opening: path)
            var folders: [String: String?] = [:]
            if let violation = TrustPolicy.strict.violation(of: file, folders: &folders) { throw violation }
        } catch {
            return PluginCheck(path: path, plugin: nil, problems: [error])
        }
        // A WebAssembly module is described in WasmKit, contained, as a host loads it.
        if WasmFile.isModule(file) {
            let (plugin, problems) = PluginInspection.loadGuest(file, logger: logger)
            return PluginCheck(path: path, plugin: plugin?.info, problems: problems)
        }
        if scanning.inChild, let executable = ScannerLocation.find(configured: scanning.executable) {
            let scanner = Scanner(executable: executable, deadline: scanning.deadline, sandbox: sandbox.request, logger: logger)
            scanner.onDenials { _, _, denials in
                for denial in denials {
                    logger.warning("sandbox_denied: the sandbox refused \(path) while it loaded: \(denial.act.escapingControls) (\(denial.call)).")
                }
            }
            switch scanner.scan(file) {
            case .described(let info): return PluginCheck(path: path, plugin: info, problems: [])
            case .refused(let errors): return PluginCheck(path: path, plugin: nil, problems: errors)
            case .crashed(let error): return PluginCheck(path: path, plugin: nil, problems: [error])
            case nil:
                guard sandbox.mode == .off else {
                    let reason = scanner.startFailure?.message ?? "the scanner could not start"
                    return PluginCheck(
                        path: path, plugin: nil,
                        problems: [GraftError(scanner.startFailure?.code ?? .scannerUnavailable, "\(path) was not checked: \(reason)", path: path)])
                }
                logger.warning("the scanner could not start; checking \(path) in this process.")
            }
        }
        let (plugin, problems) = PluginInspection.load(file, mapping: .descriptorName, logger: logger)
        return PluginCheck(path: path, plugin: plugin?.info, problems: problems)
    }
}
