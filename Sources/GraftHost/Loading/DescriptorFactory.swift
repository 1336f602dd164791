import CGraft

/// A graft.h factory whose descriptors `DescriptorReader.read(_:)` walks: the
/// component, validator and action factories. Each states only what differs
/// between them; the walk (count, each descriptor up to
/// `GRAFT_MAX_DESCRIPTORS`, no key + version twice inside one plugin, sorted
/// by key then version) is the reader's.
protocol DescriptorFactory {
    associatedtype Descriptor
    associatedtype Contract: DeclaredContract

    /// What the factory declares, in messages: "component", "validator", "action".
    static var kind: String { get }
    /// The code of a key + version declared twice by one plugin.
    static var duplicateCode: GraftError.Code { get }

    /// How many descriptors `factory` declares; nil when its count or
    /// get_descriptor function is NULL.
    static func count(_ factory: UnsafePointer<Self>) -> UInt32?
    /// The descriptor at `index`, as the plugin returns it; called only for an
    /// index below a `count` that was not nil (so get_descriptor is set).
    static func descriptor(_ factory: UnsafePointer<Self>, at index: UInt32) -> UnsafePointer<Descriptor>?
    /// A problem with the factory itself beyond its count and get_descriptor
    /// (a NULL create function), reported without stopping the walk.
    static func problem(with factory: UnsafePointer<Self>) -> String?
    /// The descriptor's contract, or nil after recording its problems in `reader`.
    static func contract(of descriptor: UnsafePointer<Descriptor>, index: Int, reader: inout DescriptorReader) -> Contract?
}

/// A component, validator or action contract: the key + version it is registered under.
protocol DeclaredContract {
    var reference: ComponentReference { get }
}

extension DescriptorFactory {
    static var duplicateCode: GraftError.Code { .invalidDescriptor }
    static func problem(with factory: UnsafePointer<Self>) -> String? { nil }
}
