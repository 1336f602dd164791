import GraftHost

/// One step of a story's `play` list: something done to the instance, or something expected of it. A story file
/// spells each as an object with one verb key (docs/Stories.md).
public enum PlayStep: Sendable, Hashable {
    /// `{"set": {…}}`: these inputs replace the ones of the same name (an `update`).
    case set([String: GraftValue])
    /// `{"interact": "tap", "data": …}`: a user interaction; the component decides what to emit.
    case interact(action: String, data: GraftValue?)
    /// `{"emit": "purchase", "payload": …}`: the event as if the component had emitted it, checked against its contract.
    case emit(event: String, payload: GraftValue?)
    /// `{"expectEvent": "dismiss", "payload": …}`: some event of that name was emitted (or simulated) since the story
    /// began, with a payload that holds every member given (objects compared member by member, anything else equal).
    case expectEvent(event: String, payload: GraftValue?)
    /// `{"expectText": "50% off"}`: the render, with its HTML tags taken out and its entities read, holds the text.
    case expectText(String)
    /// `{"expectHTML": "<li>"}`: the render's output, as the component wrote it, holds the text.
    case expectHTML(String)
    /// `{"expectNoWarning": true}` or `{"expectNoWarning": "input_missing"}`: no warning (of that code) so far.
    case expectNoWarning(code: String?)

    /// Whether the step does something to the instance (rather than expect something of it).
    public var acts: Bool {
        switch self {
        case .set, .interact, .emit: true
        case .expectEvent, .expectText, .expectHTML, .expectNoWarning: false
        }
    }

    /// The verbs, in the order docs/Stories.md lists them.
    static let verbs = ["set", "interact", "emit", "expectEvent", "expectText", "expectHTML", "expectNoWarning"]
    /// What each verb may carry beside it.
    static let companions: [String: Set<String>] = ["interact": ["data"], "emit": ["payload"], "expectEvent": ["payload"]]

    /// The step as its file spells it.
    public var jsonValue: GraftValue {
        switch self {
        case .set(let inputs): return ["set": .object(inputs)]
        case .interact(let action, let data): return .object(["interact": .string(action)].merging(data.map { ["data": $0] } ?? [:]) { a, _ in a })
        case .emit(let event, let payload):
            return .object(["emit": .string(event)].merging(payload.map { ["payload": $0] } ?? [:]) { a, _ in a })
        case .expectEvent(let event, let payload):
            return .object(["expectEvent": .string(event)].merging(payload.map { ["payload": $0] } ?? [:]) { a, _ in a })
        case .expectText(let text): return ["expectText": .string(text)]
        case .expectHTML(let text): return ["expectHTML": .string(text)]
        case .expectNoWarning(let code): return ["expectNoWarning": code.map { .string($0) } ?? .bool(true)]
        }
    }

    /// One line for a report: `interact select {"date":"2026-12-24"}`.
    public var summary: String {
        switch self {
        case .set(let inputs): return "set \(GraftValue.object(inputs).jsonText)"
        case .interact(let action, let data): return "interact \(action)" + (data.map { " \($0.jsonText)" } ?? "")
        case .emit(let event, let payload): return "emit \(event)" + (payload.map { " \($0.jsonText)" } ?? "")
        case .expectEvent(let event, let payload): return "expect event \(event)" + (payload.map { " \($0.jsonText)" } ?? "")
        case .expectText(let text): return "expect text \(GraftValue.string(text).jsonText)"
        case .expectHTML(let text): return "expect HTML \(GraftValue.string(text).jsonText)"
        case .expectNoWarning(let code): return "expect no warning" + (code.map { " \($0)" } ?? "")
        }
    }

    /// Reads one step; `at` names it in errors (`stories[1].play[2]` of a file).
    public init(parsing value: GraftValue, at place: String) throws(StoryProblem) {
        guard let object = value.objectValue else { throw StoryProblem(place, "is not an object with one of \(Self.verbList)") }
        let verbs = object.keys.filter { Self.verbs.contains($0) }
        guard verbs.count == 1, let verb = verbs.first else {
            throw StoryProblem(
                place, verbs.isEmpty ? "names no step: give one of \(Self.verbList)" : "names \(verbs.sorted().joined(separator: " and ")): one step per object")
        }
        let allowed = Self.companions[verb] ?? []
        if let stray = object.keys.filter({ $0 != verb && !allowed.contains($0) }).sorted().first {
            throw StoryProblem(place, "has \"\(stray)\", which a \"\(verb)\" step does not take" + (allowed.isEmpty ? "" : " (it takes \(allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")))"))
        }
        let argument = object[verb]!
        func text(_ what: String) throws(StoryProblem) -> String {
            guard let text = argument.stringValue, !text.isEmpty else { throw StoryProblem(place, "\"\(verb)\" needs a non-empty string (\(what))") }
            return text
        }
        switch verb {
        case "set":
            guard let inputs = argument.objectValue else { throw StoryProblem(place, "\"set\" needs an object of inputs") }
            self = .set(inputs)
        case "interact": self = .interact(action: try text("the interaction's name"), data: object["data"])
        case "emit": self = .emit(event: try text("the event's name"), payload: object["payload"])
        case "expectEvent": self = .expectEvent(event: try text("the event's name"), payload: object["payload"])
        case "expectText": self = .expectText(try text("the text to find"))
        case "expectHTML": self = .expectHTML(try text("the HTML to find"))
        default:
            switch argument {
            case .bool(true): self = .expectNoWarning(code: nil)
            case .string(let code) where !code.isEmpty: self = .expectNoWarning(code: code)
            default: throw StoryProblem(place, "\"expectNoWarning\" needs true (no warning at all) or a warning's code")
            }
        }
    }

    static var verbList: String { verbs.map { "\"\($0)\"" }.joined(separator: ", ") }
}

/// What is wrong with part of a story file: where (`stories[1].play[2]`) and why. StoryFile turns it into
/// `invalid_story` naming the file.
public struct StoryProblem: Error, Sendable, Hashable {
    public var place: String
    public var reason: String

    init(_ place: String, _ reason: String) {
        self.place = place
        self.reason = reason
    }
}
