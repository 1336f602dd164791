import GraftHost

/// `render-text-and-html`: every component, created from its debugConfig,
/// renders when asked for text/plain and for text/html, and says truthfully
/// what it wrote.
enum RenderCheck {
    /// What an isolated host accepts from one render (`IsolationLimits`' default output limit).
    static let outputLimit = 4 << 20

    static func run(_ probe: ConformanceProbe) {
        let components = probe.componentsToCheck()
        for component in components {
            let key = ConformanceKey.component(component.contract)
            for asked in ["text/plain", "text/html"] {
                probe.step(key, "creating it from its debugConfig to render it as \(asked)")
                guard case .instance(let instance) = RawInstance.create(component, inputs: component.contract.debugConfig, probe: probe) else {
                    probe.note("\(key) was not rendered: it cannot be created from its debugConfig (create-from-debug-config says why)")
                    break
                }
                probe.step(key, "rendering it as \(asked)")
                let output = instance.render(asked)
                probe.step(key, "destroying it")
                instance.destroy()
                check(output, asked: asked, key: key, probe)
            }
        }
    }

    private static func check(_ output: RawInstance.Output, asked: String, key: String, _ probe: ConformanceProbe) {
        guard output.ok else {
            probe.fail(key, expected: "render(\"\(asked)\") to return true", got: "false")
            return
        }
        if output.bytes.count > outputLimit || output.overflowed {
            probe.fail(key, expected: "at most \(outputLimit >> 20) MiB from one render (\(asked))", got: "\(output.bytes.count) bytes")
        }
        let declared = output.declared ?? asked
        guard let type = MediaTypeSyntax.essence(of: declared) else {
            probe.fail(key, expected: "a media type of the form type/subtype (asked for \(asked))", got: "\"\(declared)\"")
            return
        }
        if type.hasPrefix("text/"), String(validating: output.bytes, as: UTF8.self) == nil {
            probe.fail(key, expected: "UTF-8 text, as declared (\(declared))", got: "bytes that are not UTF-8")
        }
        if asked == "text/plain", type == "text/html" {
            probe.warn(key, expected: "text/plain when asked for it (a terminal shows markup as is)", got: "text/html")
        }
        if type == "text/plain", MediaTypeSyntax.looksLikeHTML(output.bytes) {
            probe.warn(key, expected: "set_media_type(\"text/html\") before writing HTML (asked for \(asked))", got: "markup declared text/plain")
        }
        if output.bytes.isEmpty {
            probe.warn(key, expected: "some output for \(asked)", got: "an empty render")
        }
    }
}
