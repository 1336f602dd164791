import GraftKit
import Synchronization

/// A test component that uses every part of GraftKit's component API.
final class Greeting: CustomComponent {
    /// Contexts by the `tag` input, so a test can use one after `destroy`.
    static let escaped = Mutex<[String: ComponentContext]>([:])

    static func definition(version: Int) -> CustomComponentDefinition {
        var inputs: [String: InputType] = ["name": .string, "times": .number, "tags": .list, "loud": .boolean, "tag": .string]
        var debugConfig: Value = ["name": "Ada", "times": 2, "loud": false, "tags": ["a", "b"]]
        if version == 2 {
            inputs["title"] = .string
            debugConfig = ["name": "Ada", "title": "Dr. \"Q\"\n\u{1}", "times": 2.5]
        }
        return CustomComponentDefinition(
            name: "Greeting", description: "Says hello.",
            inputs: inputs,
            outputs: [
                "greeted": OutputSchema(description: "Said hello.",
                                        payload: ["name": .string, "count": .number, "tags": .list, "meta": .object]),
                "pinged": OutputSchema(),
            ],
            debugConfig: debugConfig.objectValue!,
            factory: { props, context in Greeting(props: props, context: context) })
    }

    private let context: ComponentContext
    private var props: ComponentProps
    private var name = ""
    private var times = 0
    private var tags: [Value] = []
    private var loud = false
    private var greetings = 0

    init(props: ComponentProps, context: ComponentContext) {
        self.context = context
        self.props = props
        read(props)
        if let tag = props.values["tag"]?.stringValue {
            Self.escaped.withLock { $0[tag] = context }
        }
    }

    func render(_ request: RenderRequest) -> Rendering {
        let size = request.containerSize
        let text = "\(loud ? "HELLO" : "Hello"), \(name)! x\(times) (\(Int(size.width))x\(Int(size.height)))"
        if request.mediaType == .html {
            return Rendering(text: "<p>\(text)</p>", mediaType: .html)
        }
        return Rendering(text: text, mediaType: .plain)
    }

    func update(props: ComponentProps) -> Bool {
        self.props = props
        read(props)
        return true
    }

    func interact(_ action: String, data: Value?) -> Bool {
        switch action {
        case "greet":
            greetings += 1
            context.emit("greeted", payload: [
                "name": .string(name), "count": .number(Double(greetings)), "tags": .list(tags),
                "meta": ["nested": true, "none": nil, "ratio": 0.5],
            ])
        case "ping":
            context.emit("pinged")
        case "echo":
            context.emit("echoed", payload: ["data": data ?? .string("no data")])
        case "read_undeclared":
            _ = props.string("nickname")
        case "read_int":
            _ = props.int("times")
        case "log":
            context.log(.warning, "careful")
        default:
            return false
        }
        return true
    }

    func saveState() -> String? { "greetings=\(greetings)" }

    func loadState(_ state: String) -> Bool {
        guard state.hasPrefix("greetings="), let count = Int(state.dropFirst("greetings=".count)) else { return false }
        greetings = count
        return true
    }

    private func read(_ props: ComponentProps) {
        name = props.string("name", default: "world")
        times = Int(props.number("times", default: 1))
        tags = props.list("tags", default: [])
        loud = props.bool("loud", default: false)
    }
}
