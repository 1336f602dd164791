/// The interactions a component declares, for the `interactions` test.
///
/// ABI 1.0 has no such list: a component answers `interact(name)` with true
/// or false and nothing says which names it knows. ABI 1.1 appends
/// `interactions` to `graft_component_descriptor_t` (in progress on another
/// branch); once `ComponentContract` carries them, this is the one place to
/// read them: return the contract's list here (with each interaction's data
/// fields, if it declares any) and the test exercises every one.
struct DeclaredInteraction: Sendable, Hashable {
    var name: String
    /// The fields of the data the interaction takes; a sample value of each
    /// declared type is sent.
    var data: [FieldSpec]
}

extension ComponentContract {
    /// Nil when the component's ABI cannot declare interactions (1.0).
    var declaredInteractions: [DeclaredInteraction]? { nil }
}
