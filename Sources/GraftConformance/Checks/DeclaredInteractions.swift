import GraftHost

/// The interactions a component declares (ABI 1.1), for the `interactions`
/// test: each is called with a sample value of every declared data field.
struct DeclaredInteraction: Sendable, Hashable {
    var name: String
    /// The fields of the data the interaction takes.
    var data: [FieldSpec]
}

extension ComponentContract {
    /// Nil when the component declares none (an ABI 1.0 plugin cannot).
    var declaredInteractions: [DeclaredInteraction]? {
        interactions.isEmpty ? nil : interactions.map { DeclaredInteraction(name: $0.name, data: $0.data) }
    }
}
