import CGraft
import GraftKit

/// Walks the test plugin through graft.h's function pointers, as a host does.
enum HostSide {
    static var entry: UnsafePointer<graft_plugin_entry_t> {
        graftKitTestEntry().assumingMemoryBound(to: graft_plugin_entry_t.self)
    }

    static var components: UnsafePointer<graft_component_factory_t> {
        factory(GRAFT_COMPONENT_FACTORY_ID, as: graft_component_factory_t.self)!
    }

    static var validators: UnsafePointer<graft_validator_factory_t> {
        factory(GRAFT_VALIDATOR_FACTORY_ID, as: graft_validator_factory_t.self)!
    }

    static var actions: UnsafePointer<graft_action_factory_t> {
        factory(GRAFT_ACTION_FACTORY_ID, as: graft_action_factory_t.self)!
    }

    /// `get_factory` with a factory id such as graft.h's `GRAFT_*_FACTORY_ID`.
    static func factory<Factory>(_ id: String, as type: Factory.Type) -> UnsafePointer<Factory>? {
        entry.pointee.get_factory!(id)?.assumingMemoryBound(to: type)
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// "key:type" for each field, in C order.
    static func fields(_ fields: UnsafePointer<graft_field_t>?, _ count: UInt32) -> [String] {
        (0..<Int(count)).map { "\(String(cString: fields![$0].key)):\(fields![$0].type)" }
    }

    static func componentDescriptor(_ index: UInt32) -> graft_component_descriptor_t? {
        components.pointee.get_descriptor!(components, index)?.pointee
    }

    static func validatorDescriptor(named name: String) -> graft_validator_descriptor_t? {
        validatorDescriptorPointer(named: name)?.pointee
    }

    /// The descriptor itself, as a host passes it to `validate` as `self`.
    static func validatorDescriptorPointer(named name: String) -> UnsafePointer<graft_validator_descriptor_t>? {
        let count = validators.pointee.count!(validators)
        return (0..<count).lazy.compactMap { validators.pointee.get_descriptor!(validators, $0) }
            .first { String(cString: $0.pointee.name) == name }
    }

    static func actionDescriptor(named key: String) -> graft_action_descriptor_t? {
        actionDescriptorPointer(named: key)?.pointee
    }

    /// The descriptor itself, as a host passes it to `invoke` as `self`.
    static func actionDescriptorPointer(named key: String) -> UnsafePointer<graft_action_descriptor_t>? {
        let count = actions.pointee.count!(actions)
        return (0..<count).lazy.compactMap { actions.pointee.get_descriptor!(actions, $0) }
            .first { String(cString: $0.pointee.key) == key }
    }

    /// `create` with inputs built as host-owned C values (freed right after, as
    /// a host may: the plugin must have copied them).
    static func create(_ key: String, version: UInt32, inputs: Value?,
                       context: FakeComponentContext) -> HostInstance? {
        let tree = CTree()
        let pointer = components.pointee.create!(
            components, key, version, inputs.map { tree.pointer($0) }, context.pointer)
        return pointer.map { HostInstance(pointer: $0, context: context) }
    }
}
