import GraftHost

/// An event seen while a story plays: emitted by the component, or simulated by an `emit` step.
public struct PlayedEvent: Sendable, Hashable {
    public var event: String
    public var payload: GraftValue?
    public var simulated: Bool

    public init(event: String, payload: GraftValue?, simulated: Bool) {
        self.event = event
        self.payload = payload
        self.simulated = simulated
    }
}

/// What a story plays on: a live instance, in `graft test` or behind a workbench page. Both give the same answers,
/// so a story passes or fails alike in either.
public protocol PlayTarget: AnyObject {
    /// Replaces the inputs given (the others stay).
    func set(inputs: [String: GraftValue]) throws(GraftError)
    /// nil when the component took it; else why not.
    func interact(_ action: String, data: GraftValue?) -> GraftError?
    /// Records the event as if the component had emitted it; its warnings against the contract.
    func simulate(event: String, payload: GraftValue?) -> [GraftWarning]
    func render() throws(GraftError) -> Rendering
    /// Every event since the story began, oldest first.
    var events: [PlayedEvent] { get }
    /// Every warning since the story began (the instance's and the simulated events').
    var warnings: [GraftWarning] { get }
}

/// One step's outcome: passed, or failed with the reason.
public struct StepResult: Sendable, Hashable {
    public var index: Int
    public var step: PlayStep
    public var failure: String?

    public var passed: Bool { failure == nil }

    public init(index: Int, step: PlayStep, failure: String?) {
        self.index = index
        self.step = step
        self.failure = failure
    }

    public var jsonValue: GraftValue {
        ["index": .number(Double(index)), "step": step.jsonValue, "summary": .string(step.summary), "passed": .bool(passed),
         "failure": failure.map { .string($0) } ?? .null]
    }
}

/// Plays steps on a target, one at a time: what `graft test` and the workbench's play panel share.
public enum StoryStepper {
    public static func perform(_ step: PlayStep, index: Int, on target: PlayTarget) -> StepResult {
        StepResult(index: index, step: step, failure: failure(of: step, on: target))
    }

    static func failure(of step: PlayStep, on target: PlayTarget) -> String? {
        switch step {
        case .set(let inputs):
            do throws(GraftError) { try target.set(inputs: inputs) } catch { return "\(error.code.rawValue): \(error.message)" }
            return nil
        case .interact(let action, let data):
            return target.interact(action, data: data).map { "\($0.code.rawValue): \($0.message)" }
        case .emit(let event, let payload):
            _ = target.simulate(event: event, payload: payload)
            return nil
        case .expectEvent(let event, let payload):
            let named = target.events.filter { $0.event == event }
            if named.contains(where: { payload == nil || holds($0.payload ?? .null, payload!) }) { return nil }
            let seen = target.events.isEmpty ? "none was" : target.events.map { "\($0.event) \($0.payload?.jsonText ?? "null")" }.joined(separator: ", ")
            return named.isEmpty
                ? "no \(event) event; events so far: \(seen)."
                : "no \(event) event with a payload holding \(payload!.jsonText); events so far: \(seen)."
        case .expectText(let text):
            return rendered { rendering in
                let shown = visibleText(rendering)
                return shown.contains(text) ? nil : "the render's text does not hold \(GraftValue.string(text).jsonText); it reads \(excerpt(shown))."
            }
        case .expectHTML(let text):
            return rendered { rendering in
                rendering.text.contains(text) ? nil : "the render does not hold \(GraftValue.string(text).jsonText); it is \(excerpt(rendering.text))."
            }
        case .expectNoWarning(let code):
            let found = target.warnings.filter { code == nil || $0.code.rawValue == code }
            guard let first = found.first else { return nil }
            return "\(found.count) warning\(found.count == 1 ? "" : "s")\(code.map { " \($0)" } ?? ""), the first \(first.code.rawValue): \(first.message)"
        }

        func rendered(_ check: (Rendering) -> String?) -> String? {
            do throws(GraftError) { return check(try target.render()) } catch { return "the render failed: \(error.code.rawValue): \(error.message)" }
        }
    }

    /// Whether `actual` holds everything `expected` gives: objects member by member (recursively), anything else equal.
    static func holds(_ actual: GraftValue, _ expected: GraftValue) -> Bool {
        guard case .object(let wanted) = expected else { return actual == expected }
        guard case .object(let have) = actual else { return false }
        return wanted.allSatisfy { key, value in have[key].map { holds($0, value) } ?? false }
    }

    /// What a person reads of a render: for HTML, its text without tags (a tag that starts a block, a line break or
    /// a cell is a space; an inline one, such as `<b>`, is nothing), without the content of `<script>`, `<style>`,
    /// `<template>` and `<title>`, with character references read (`&amp;`, `&#8217;`, `&#x2019;`) and runs of
    /// white space made one space; plain text as it is.
    public static func visibleText(_ rendering: Rendering) -> String {
        guard rendering.mediaType == .html else { return rendering.text }
        let inline: Set<String> = ["a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "label", "mark", "q", "s",
                                   "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr"]
        let hidden: Set<String> = ["script", "style", "template", "title"]
        var text = ""
        var scalars = Array(rendering.text.unicodeScalars)[...]
        var skipping: String?
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            guard scalar == "<" else {
                if skipping == nil { text.unicodeScalars.append(scalar) }
                continue
            }
            // A tag: its name, then up to its `>`, quotes respected.
            var quote: Unicode.Scalar?
            var tag = ""
            while let next = scalars.first {
                scalars = scalars.dropFirst()
                if let open = quote { if next == open { quote = nil } } else if next == "\"" || next == "'" { quote = next } else if next == ">" { break }
                tag.unicodeScalars.append(next)
            }
            let closing = tag.hasPrefix("/")
            let name = String(tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }).lowercased()
            if let skipped = skipping {
                if closing && name == skipped { skipping = nil }
                continue
            }
            if !closing && hidden.contains(name) && !tag.hasSuffix("/") { skipping = name; continue }
            if !inline.contains(name) { text.append(" ") }
        }
        return readingReferences(text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `&name;`, `&#N;` and `&#xH;` read as the characters they stand for (the common names; an unknown one is left).
    static func readingReferences(_ text: String) -> String {
        let named: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "#39": "'"]
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else { out += "&"; rest = rest.dropFirst(); continue }
            let name = String(rest[rest.index(after: rest.startIndex)..<semicolon])
            var character: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                character = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                character = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                character = named[name]
            }
            if let character {
                out += character
                rest = rest[rest.index(after: semicolon)...]
            } else {
                out += "&"
                rest = rest.dropFirst()
            }
        }
        return out + rest
    }

    static func excerpt(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return GraftValue.string(flat.count > 160 ? String(flat.prefix(160)) + "…" : flat).jsonText
    }
}
