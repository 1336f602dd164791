import GraftHost
import GraftInProcess
import GraftKit

/// The bench plugin's `echo`, written in Swift with GraftKit and registered
/// in the host's own process: created, rendered, checked and emitted through
/// the same host, the same C tables and the same contract checks as the C
/// plugin's, without a shared library. What `graft bench components`
/// compares the C plugin with.
final class SwiftEcho: CustomComponent {
    let context: ComponentContext
    let text: String

    init(props: ComponentProps, context: ComponentContext) {
        self.context = context
        text = props.string("text", default: "")
    }

    func render(_ request: RenderRequest) -> GraftKit.Rendering {
        GraftKit.Rendering(text: "echo:" + text, mediaType: .plain)
    }

    func interact(_ action: String, data: Value?) -> Bool {
        guard action == "say" else { return false }
        context.emit("said", payload: ["text": .string(text)])
        return true
    }

    /// `echo`'s contract, under another key in the same host.
    static let definition = CustomComponentDefinition(
        inputs: ["text": .string],
        outputs: ["said": OutputSchema(payload: ["text": .string])],
        interactions: ["say": InteractionSchema(description: "emits `said` with the text")],
        debugConfig: ["text": "hi"],
        factory: { props, context in SwiftEcho(props: props, context: context) })
}
