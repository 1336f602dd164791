import CGraft

/// Reads a plugin's factories into contracts and checks every rule graft.h
/// states, collecting every problem rather than stopping at the first, so
/// `graft check` can report them all at once.
struct DescriptorReader {
    /// Bounds on what a plugin may declare; a plugin beyond them is broken or hostile.
    static let maximumDescriptors = Int(GRAFT_MAX_DESCRIPTORS)
    static let maximumFields = Int(GRAFT_MAX_FIELDS)

    let path: String
    /// The minor ABI version the plugin's entry declares: fields a later
    /// minor added to a descriptor are read only when it has them.
    let abiMinor: Int
    private(set) var problems: [GraftError] = []

    init(path: String, abiMinor: Int = ABIVersion.host.minor) {
        self.path = path
        self.abiMinor = abiMinor
    }

    mutating func problem(_ code: GraftError.Code, _ message: String, key: String? = nil, symbol: String? = nil) {
        problems.append(GraftError(code, "\(path): \(message)", path: path, symbol: symbol, key: key))
    }

    /// Every descriptor `factory` declares, with its contract, sorted by key
    /// then version. A NULL or invalid descriptor and a key + version declared
    /// twice are problems; the rest are still read.
    mutating func read<Factory: DescriptorFactory>(
        _ factory: UnsafePointer<Factory>
    ) -> [(Factory.Contract, UnsafePointer<Factory.Descriptor>)] {
        let kind = Factory.kind
        guard let count = Factory.count(factory) else {
            problem(.invalidDescriptor, "the \(kind) factory has a NULL count or get_descriptor function.")
            return []
        }
        if let message = Factory.problem(with: factory) { problem(.invalidDescriptor, message) }
        let declared = Int(count)
        guard declared <= Self.maximumDescriptors else {
            problem(.invalidDescriptor, "the \(kind) factory declares \(declared) \(kind)s; the most is \(Self.maximumDescriptors).")
            return []
        }
        var result: [(Factory.Contract, UnsafePointer<Factory.Descriptor>)] = []
        var seen: Set<ComponentReference> = []
        for index in 0..<declared {
            guard let descriptor = Factory.descriptor(factory, at: UInt32(index)) else {
                problem(.invalidDescriptor, "\(kind) descriptor #\(index) is NULL although count() is \(declared).")
                continue
            }
            guard let contract = Factory.contract(of: descriptor, index: index, reader: &self) else { continue }
            let reference = contract.reference
            if !seen.insert(reference).inserted {
                problem(Factory.duplicateCode, "declares \(kind) \(reference) twice.", key: reference.key)
                continue
            }
            result.append((contract, descriptor))
        }
        return result.sorted {
            ($0.0.reference.key, $0.0.reference.version) < ($1.0.reference.key, $1.0.reference.version)
        }
    }

    /// `read(_:)` of the factory `pointer` points to, if there is one.
    mutating func read<Factory: DescriptorFactory>(
        _ pointer: UnsafeRawPointer?, as _: Factory.Type
    ) -> [(Factory.Contract, UnsafePointer<Factory.Descriptor>)] {
        pointer.map { read($0.assumingMemoryBound(to: Factory.self)) } ?? []
    }

    mutating func readFields(
        _ pointer: UnsafePointer<graft_field_t>?, count: UInt32, what: @autoclosure () -> String, allowObject: Bool, key: String?
    ) -> [FieldSpec] {
        guard count > 0 else { return [] }
        guard Int(count) <= Self.maximumFields else {
            problem(.invalidDescriptor, "\(what())s: \(count) declared; the most is \(Self.maximumFields).", key: key)
            return []
        }
        guard let pointer else {
            problem(.invalidDescriptor, "\(what())s: \(count) declared but the pointer is NULL.", key: key)
            return []
        }
        var fields: [FieldSpec] = []
        var seen: Set<String> = []
        for index in 0..<Int(count) {
            let field = pointer[index]
            guard let name = String(plugin: field.key), ComponentReference.isValidKey(name) else {
                problem(
                    .invalidDescriptor,
                    "\(what()) #\(index) has an invalid key '\(String(plugin: field.key) ?? "NULL")'; use a-z, 0-9, '_', '.', '-'.",
                    key: key)
                continue
            }
            guard let type = Self.valueType(field.type), type != .null, allowObject || type != .object else {
                let allowed = allowObject ? "string, number, boolean, list or object" : "string, number, boolean or list"
                problem(.invalidDescriptor, "\(what()) '\(name)' has type tag \(field.type); use \(allowed).", key: key)
                continue
            }
            if !seen.insert(name).inserted {
                problem(.invalidDescriptor, "\(what()) '\(name)' is declared twice.", key: key)
                continue
            }
            fields.append(FieldSpec(key: name, type: type, description: String(plugin: field.description)))
        }
        // Declared order: params are positional, and authors order inputs deliberately.
        return fields
    }

    static func valueType(_ tag: UInt32) -> ValueType? {
        switch tag {
        case UInt32(GRAFT_TYPE_NULL): .null
        case UInt32(GRAFT_TYPE_BOOLEAN): .boolean
        case UInt32(GRAFT_TYPE_NUMBER): .number
        case UInt32(GRAFT_TYPE_STRING): .string
        case UInt32(GRAFT_TYPE_LIST): .list
        case UInt32(GRAFT_TYPE_OBJECT): .object
        default: nil
        }
    }
}
