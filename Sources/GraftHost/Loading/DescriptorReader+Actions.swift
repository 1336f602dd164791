import CGraft

extension graft_action_factory_t: DescriptorFactory {
    static var kind: String { "action" }

    static func count(_ factory: UnsafePointer<Self>) -> UInt32? {
        guard let count = factory.pointee.count, factory.pointee.get_descriptor != nil else { return nil }
        return count(factory)
    }

    static func descriptor(_ factory: UnsafePointer<Self>, at index: UInt32) -> UnsafePointer<graft_action_descriptor_t>? {
        factory.pointee.get_descriptor!(factory, index)
    }

    static func contract(
        of descriptor: UnsafePointer<graft_action_descriptor_t>, index: Int, reader: inout DescriptorReader
    ) -> ActionContract? {
        reader.readAction(descriptor.pointee, index: index)
    }
}

extension DescriptorReader {
    fileprivate mutating func readAction(_ d: graft_action_descriptor_t, index: Int) -> ActionContract? {
        let before = problems.count
        let key = String(plugin: d.key)
        let label = key.map { "action '\($0)'" } ?? "action #\(index)"
        if key == nil || !ComponentReference.isValidKey(key!) {
            problem(.invalidDescriptor, "\(label) has a NULL or invalid key; keys use a-z, 0-9, '_', '.', '-'.", key: key)
        }
        if d.version < 1 { problem(.invalidDescriptor, "\(label) has version \(d.version); versions start at 1.", key: key) }
        if d.invoke == nil { problem(.invalidDescriptor, "\(label) has a NULL invoke function.", key: key) }
        let params = readFields(d.params, count: d.param_count, what: "\(label) param", allowObject: true, key: key)
        guard problems.count == before, let key else { return nil }
        return ActionContract(
            key: key, version: Int(d.version), name: String(plugin: d.name), description: String(plugin: d.description),
            params: params)
    }
}
