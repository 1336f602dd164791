/// What a runner call is about, as its errors and logs name it ("render of
/// echo@1 (instance 'e')"). Kept in parts and spelled out only when a
/// message needs it: nearly every call succeeds, and building the sentence
/// for each was a measurable share of an isolated render.
struct CallName: CustomStringConvertible, ExpressibleByStringInterpolation, Sendable {
    var action: String
    /// A name the action quotes: `interact 'say'`, `validator 'luhn'`.
    var quoting: String?
    var component: ComponentReference?
    var instanceID: String?
    var withFirstRender = false

    init(_ action: String, quoting: String? = nil, of component: ComponentReference? = nil, instance instanceID: String? = nil) {
        self.action = action
        self.quoting = quoting
        self.component = component
        self.instanceID = instanceID
    }

    init(stringLiteral value: String) { action = value }

    init(stringInterpolation: DefaultStringInterpolation) { action = String(stringInterpolation: stringInterpolation) }

    var description: String {
        var text = action
        if let quoting { text += " '\(quoting)'" }
        if let component { text += " of \(component)" }
        if let instanceID { text += " (instance '\(instanceID)')" }
        if withFirstRender { text += " with its first render" }
        return text
    }
}
