import CGraft

extension graft_component_factory_t: DescriptorFactory {
    static var kind: String { "component" }
    static var duplicateCode: GraftError.Code { .duplicateComponent }

    static func count(_ factory: UnsafePointer<Self>) -> UInt32? {
        guard let count = factory.pointee.count, factory.pointee.get_descriptor != nil else { return nil }
        return count(factory)
    }

    static func descriptor(_ factory: UnsafePointer<Self>, at index: UInt32) -> UnsafePointer<graft_component_descriptor_t>? {
        factory.pointee.get_descriptor!(factory, index)
    }

    static func problem(with factory: UnsafePointer<Self>) -> String? {
        factory.pointee.create == nil ? "the component factory has a NULL create function." : nil
    }

    static func contract(
        of descriptor: UnsafePointer<graft_component_descriptor_t>, index: Int, reader: inout DescriptorReader
    ) -> ComponentContract? {
        reader.readComponent(reader.laidOut(descriptor), index: index)
    }
}

extension DescriptorReader {
    /// The descriptor as the plugin's ABI laid it out: a 1.0 plugin's ends at
    /// `debug_config`, so only those bytes are read (the memory after them may
    /// not be readable at all); the fields a later minor added stay zero.
    fileprivate func laidOut(_ descriptor: UnsafePointer<graft_component_descriptor_t>) -> graft_component_descriptor_t {
        var copy = graft_component_descriptor_t()
        let size = abiMinor >= 1
            ? MemoryLayout<graft_component_descriptor_t>.size
            : MemoryLayout<graft_component_descriptor_t>.offset(of: \.interactions)!
        withUnsafeMutableBytes(of: &copy) { $0.copyMemory(from: UnsafeRawBufferPointer(start: descriptor, count: size)) }
        return copy
    }

    fileprivate mutating func readComponent(_ d: graft_component_descriptor_t, index: Int) -> ComponentContract? {
        let before = problems.count
        let key = String(plugin: d.key)
        let label = key.map { "component '\($0)'" } ?? "component #\(index)"
        if let key {
            if !ComponentReference.isValidKey(key) {
                problem(.invalidDescriptor, "\(label) has an invalid key; keys are non-empty and use a-z, 0-9, '_', '.', '-'.", key: key)
            }
        } else {
            problem(.invalidDescriptor, "component #\(index) has a NULL key.")
        }
        if d.version < 1 {
            problem(.invalidDescriptor, "\(label) has version \(d.version); versions start at 1.", key: key)
        }
        let inputs = readFields(d.inputs, count: d.input_count, what: "\(label) input", allowObject: false, key: key)
        let outputs = readNamed(d.outputs, count: d.output_count, what: "output", name: { $0.event }, label: label, key: key) {
            reader, output, event in
            let payload = reader.readFields(
                output.payload, count: output.payload_count, what: "\(label) event '\(event)' payload field",
                allowObject: true, key: key)
            return OutputSpec(event: event, description: String(plugin: output.description), payload: payload)
        }
        let debugConfig = readConfig(d.debug_config, inputs: inputs, what: "\(label) debug_config", key: key)
        // ABI 1.1: a 1.0 plugin's descriptor ends at debug_config.
        let interactions = readNamed(
            d.interactions, count: d.interaction_count, what: "interaction", name: { $0.name }, label: label, key: key
        ) { reader, interaction, name in
            let data = reader.readFields(
                interaction.data, count: interaction.data_count, what: "\(label) interaction '\(name)' data field",
                allowObject: true, key: key)
            return InteractionSpec(name: name, description: String(plugin: interaction.description), data: data)
        }
        guard problems.count == before, let key else { return nil }
        return ComponentContract(
            key: key, version: Int(d.version), name: String(plugin: d.name), description: String(plugin: d.description),
            inputs: inputs, outputs: outputs.sorted { $0.event < $1.event }, debugConfig: debugConfig,
            interactions: interactions)
    }

    /// A component's outputs or interactions (`what`): at most `maximumFields`,
    /// each named by a valid key used once, made into specs by `spec`.
    private mutating func readNamed<Item, Spec>(
        _ pointer: UnsafePointer<Item>?, count: UInt32, what: String, name field: (Item) -> UnsafePointer<CChar>?,
        label: String, key: String?, _ spec: (inout DescriptorReader, Item, String) -> Spec
    ) -> [Spec] {
        guard count > 0 else { return [] }
        guard Int(count) <= Self.maximumFields else {
            problem(.invalidDescriptor, "\(label) declares \(count) \(what)s; the most is \(Self.maximumFields).", key: key)
            return []
        }
        guard let pointer else {
            problem(.invalidDescriptor, "\(label) declares \(count) \(what)s but the \(what)s pointer is NULL.", key: key)
            return []
        }
        var specs: [Spec] = []
        var names: Set<String> = []
        for index in 0..<Int(count) {
            let item = pointer[index]
            guard let name = String(plugin: field(item)), ComponentReference.isValidKey(name) else {
                problem(
                    .invalidDescriptor,
                    "\(label) \(what) #\(index) has an invalid name '\(String(plugin: field(item)) ?? "NULL")'; use a-z, 0-9, '_', '.', '-' (at most 128 bytes).",
                    key: key)
                continue
            }
            guard names.insert(name).inserted else {
                problem(.invalidDescriptor, "\(label) declares \(what) '\(name)' twice.", key: key)
                continue
            }
            specs.append(spec(&self, item, name))
        }
        return specs
    }

    /// A debug_config or a story's config: a JSON object (NULL or blank is {}) of declared inputs, each of its type.
    mutating func readConfig(_ pointer: UnsafePointer<CChar>?, inputs: [FieldSpec], what: @autoclosure () -> String, key: String?) -> [String: GraftValue] {
        guard let text = String(plugin: pointer), text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { return [:] }
        let value: GraftValue
        do {
            value = try GraftValue(json: text)
        } catch {
            problem(.invalidDescriptor, "\(what()) \(error.message)", key: key)
            return [:]
        }
        guard let object = value.objectValue else {
            problem(.invalidDescriptor, "\(what()) is a JSON \(value.type.rawValue), not an object.", key: key)
            return [:]
        }
        for (name, sample) in object.sorted(by: { $0.key < $1.key }) {
            guard let input = inputs.first(where: { $0.key == name }) else {
                problem(.invalidDescriptor, "\(what()) sets '\(name)', which is not a declared input.", key: key)
                continue
            }
            if !input.type.accepts(sample) {
                problem(.invalidDescriptor, "\(what()) gives '\(name)' a \(sample.type.rawValue) but the input is declared \(input.type.rawValue).", key: key)
            }
        }
        return object
    }
}
