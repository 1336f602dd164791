import Logging

/// The result of checking one plugin file on its own: what it declares when
/// it loads, and every problem found otherwise.
public struct PluginCheck: Sendable {
    public var path: String
    /// Set when the plugin loaded and passed every check.
    public var plugin: PluginInfo?
    /// Every problem found, in the order the loader met them.
    public var problems: [GraftError]

    public var isClean: Bool { problems.isEmpty }
}

extension GraftHost {
    /// Loads `path` alone, outside any registry, and reports every problem:
    /// the file, the ELF image, the entry and ABI, every descriptor, the
    /// debugConfigs against the inputs, duplicates inside the plugin, and
    /// native signatures libffi cannot prepare. The image is unloaded again
    /// afterwards unless it contains Swift.
    public static func check(pluginAt path: String, logger: Logger = Logger(label: "graft.check")) -> PluginCheck {
        let file: PluginFile
        do throws(GraftError) {
            file = try PluginFile(opening: path)
            var folders: [String: String?] = [:]
            if let violation = TrustPolicy.strict.violation(of: file, folders: &folders) { throw violation }
        } catch {
            return PluginCheck(path: path, plugin: nil, problems: [error])
        }
        switch PluginLoader(logger: logger).open(file, mapping: .link, images: ImageStore()) {
        case .failure(let problems):
            return PluginCheck(path: path, plugin: nil, problems: problems.errors)
        case .success(let plugin):
            // The plugin is dropped on return: its deinit runs and a C image is closed.
            do throws(GraftError) {
                _ = try ValidatorRegistry().prepare(plugin)
            } catch {
                return PluginCheck(path: path, plugin: nil, problems: [error])
            }
            return PluginCheck(path: path, plugin: plugin.info, problems: [])
        }
    }
}
