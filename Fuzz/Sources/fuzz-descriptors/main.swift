// What a plugin declares through graft.h: component descriptors with keys,
// versions, inputs, outputs and their payloads, debugConfigs and
// interactions, read by the scanner before anything of the plugin runs in
// the host. A plugin may lie in every field; within what graft.h lets it
// point at, nothing may crash, and what is accepted must obey the rules.
import CFuzz

#if canImport(Glibc)
import Glibc
#endif
import CGraft

@testable import GraftHost

/// Draws fields of descriptors from the fuzzer's bytes (zero once they run out).
struct Draw {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    /// Every C allocation made for one input, freed when it is done.
    var allocations: [UnsafeMutableRawPointer] = []

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// Mostly small; now and then any 32-bit number.
    mutating func number() -> UInt32 {
        let first = byte()
        guard first == 0xFF else { return UInt32(first % 4) }
        return (0..<4).reduce(0) { value, _ in value << 8 | UInt32(byte()) }
    }

    /// A NUL-terminated string of up to 63 bytes, or NULL.
    mutating func string() -> UnsafePointer<CChar>? {
        let length = Int(byte())
        guard length != 0xFF else { return nil }
        let count = length % 64
        let text = UnsafeMutablePointer<CChar>.allocate(capacity: count + 1)
        for offset in 0..<count { text[offset] = CChar(bitPattern: byte()) }
        text[count] = 0
        allocations.append(text)
        return UnsafePointer(text)
    }

    /// A count and that many elements: a count past graft.h's limits points
    /// at one element only (the reader must refuse it before reading on).
    mutating func list<Element>(_ make: (inout Draw) -> Element) -> (UnsafePointer<Element>?, UInt32) {
        let drawn = byte()
        if drawn == 0xFE { return (nil, 1) }  // a count with a NULL pointer
        let overLimit = drawn == 0xFD
        let count = overLimit ? 1 : Int(drawn % 5)
        guard count > 0 else { return (nil, 0) }
        let elements = UnsafeMutablePointer<Element>.allocate(capacity: count)
        for offset in 0..<count { (elements + offset).initialize(to: make(&self)) }
        allocations.append(elements)
        return (UnsafePointer(elements), overLimit ? UInt32(GRAFT_MAX_FIELDS) + 1 : UInt32(count))
    }

    mutating func field() -> graft_field_t {
        graft_field_t(key: string(), type: UInt32(byte() % 8), description: string())
    }

    mutating func component() -> graft_component_descriptor_t {
        var descriptor = graft_component_descriptor_t()
        descriptor.key = string()
        descriptor.version = number()
        descriptor.name = string()
        descriptor.description = string()
        (descriptor.inputs, descriptor.input_count) = list { $0.field() }
        (descriptor.outputs, descriptor.output_count) = list { draw in
            var output = graft_output_t()
            output.event = draw.string()
            output.description = draw.string()
            (output.payload, output.payload_count) = draw.list { $0.field() }
            return output
        }
        descriptor.debug_config = string()
        (descriptor.interactions, descriptor.interaction_count) = list { draw in
            var interaction = graft_interaction_t()
            interaction.name = draw.string()
            interaction.description = draw.string()
            (interaction.data, interaction.data_count) = draw.list { $0.field() }
            return interaction
        }
        return descriptor
    }
}

/// The factory's functions are C function pointers: what they serve is global.
nonisolated(unsafe) var served: [UnsafePointer<graft_component_descriptor_t>?] = []

// libFuzzer looks for this name; the driver below is handed it too (whichever main the link keeps).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDescriptors(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var draw = Draw(bytes: UnsafeRawBufferPointer(start: start, count: count))
    defer { for allocation in draw.allocations { allocation.deallocate() } }
    let abiMinor = Int(draw.byte() % 5)
    let declared = Int(draw.byte() % 6)
    let components = UnsafeMutablePointer<graft_component_descriptor_t>.allocate(capacity: max(declared, 1))
    draw.allocations.append(components)
    served = (0..<declared).map { index in
        (components + index).initialize(to: draw.component())
        // Now and then a NULL descriptor within the count.
        return draw.byte() == 0xFC ? nil : UnsafePointer(components + index)
    }
    var factory = graft_component_factory_t(
        count: { _ in UInt32(served.count) },
        get_descriptor: { _, index in Int(index) < served.count ? served[Int(index)] : nil },
        create: { _, _, _, _, _ in nil })
    var reader = DescriptorReader(path: "/plugins/fuzz.so", abiMinor: abiMinor)
    let contracts = withUnsafePointer(to: &factory) { reader.read($0) }.map(\.0)
    // What is accepted obeys graft.h: valid keys, versions from 1, one of each.
    for contract in contracts {
        precondition(ComponentReference.isValidKey(contract.key) && contract.version >= 1, "an invalid component accepted")
        precondition(contract.inputs.count <= DescriptorReader.maximumFields, "too many inputs accepted")
    }
    precondition(Set(contracts.map(\.reference)).count == contracts.count, "a component accepted twice")
    served = []
    return 0
}

var argc = CommandLine.argc
var argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?(CommandLine.unsafeArgv)
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzDescriptors(UnsafeRawPointer(data!), size)
})
