/// `render-text-and-html`: every component, created from its debugConfig,
/// renders when asked for text/plain and for text/html, and says truthfully
/// what it wrote.
enum RenderCheck {
    /// What an isolated host accepts from one render (`IsolationLimits`' default output limit).
    static let outputLimit = 4 << 20

    static func run(_ probe: ConformanceProbe) {
        guard let plugin = probe.plugin() else { return }
        let components = probe.components(of: plugin)
        if components.isEmpty { probe.skip("the plugin declares no components") }
        for component in components {
            let key = ConformanceKey.component(component.contract)
            for asked in ["text/plain", "text/html"] {
                probe.step(key, "creating it from its debugConfig to render it as \(asked)")
                guard case .instance(let instance) = RawInstance.create(component, inputs: component.contract.debugConfig, logger: probe.logger) else {
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

/// Media types as graft.h compares them: type and subtype, case-insensitive,
/// parameters after ';' ignored.
enum MediaTypeSyntax {
    /// `type/subtype` in lower case, or nil when `text` is not a media type.
    static func essence(of text: String) -> String? {
        let essence = trim(text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0], " \t").lowercased()
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(isTokenCharacter) }) else { return nil }
        return essence
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!#$&^_.+-".unicodeScalars.contains(scalar))
    }

    /// Text that starts with a tag and closes one.
    static func looksLikeHTML(_ bytes: [UInt8]) -> Bool {
        let text = trim(String(decoding: bytes.prefix(4096), as: UTF8.self)[...], " \t\r\n")
        return text.hasPrefix("<") && (text.contains("</") || text.contains("/>"))
    }

    /// `text` without leading and trailing characters of `set`.
    private static func trim(_ text: Substring, _ set: String) -> String {
        let drop = Set(set)
        return String(text.drop(while: { drop.contains($0) }).reversed().drop(while: { drop.contains($0) }).reversed())
    }
}
