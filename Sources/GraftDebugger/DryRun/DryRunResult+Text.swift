import GraftHost

extension DryRunResult {
    /// The layout `graft try` prints (and `graft debug attach … try`):
    /// the component and plugin, the inputs, the rendering between rules,
    /// then "Actions called" and the warnings. Text a plugin chose reaches
    /// the terminal with its escape codes and NULs written out (newlines and
    /// tabs kept).
    public var text: String {
        var lines = [
            "\(component) from \(pluginID.escapingControls) (\(pluginPath))",
            "inputs: \(GraftValue.object(inputs).jsonText)",
            "--- \(rendering.mediaType.rawValue.escapingControls) ---",
            rendering.text.escapingControls(keepingLines: true),
            "---",
        ]
        if records.isEmpty {
            lines.append("Actions called: none")
        } else {
            lines.append("Actions called (newest last):")
            for record in records { lines += record.textLines }
        }
        if !warnings.isEmpty {
            lines.append("warnings:")
            for warning in warnings { lines.append("  \(warning.code.rawValue): \(warning.message.escapingControls)") }
        }
        return lines.joined(separator: "\n")
    }
}
