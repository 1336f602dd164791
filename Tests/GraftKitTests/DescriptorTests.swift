import CGraft
import Testing

@Suite("Descriptors")
struct DescriptorTests {
    @Test("components are listed by key, then version")
    func componentOrder() {
        let factory = HostSide.components
        #expect(factory.pointee.count!(factory) == 4)
        let listed = (0..<4).compactMap(HostSide.componentDescriptor).map { "\(String(cString: $0.key))@\($0.version)" }
        #expect(listed == ["greeting@1", "greeting@2", "minimal@1", "refusing@1"])
        #expect(HostSide.componentDescriptor(4) == nil)
        #expect(factory.pointee.get_descriptor!(factory, 0) == factory.pointee.get_descriptor!(factory, 0))
    }

    @Test("a component descriptor has sorted inputs, outputs and payload fields, and debug_config JSON")
    func greetingDescriptor() throws {
        let descriptor = try #require(HostSide.componentDescriptor(0))
        #expect(HostSide.string(descriptor.name) == "Greeting")
        #expect(HostSide.string(descriptor.description) == "Says hello.")
        #expect(HostSide.fields(descriptor.inputs, descriptor.input_count)
                == ["loud:\(GRAFT_TYPE_BOOLEAN)", "name:\(GRAFT_TYPE_STRING)", "tag:\(GRAFT_TYPE_STRING)",
                    "tags:\(GRAFT_TYPE_LIST)", "times:\(GRAFT_TYPE_NUMBER)"])
        #expect(descriptor.output_count == 2)
        let greeted = descriptor.outputs[0], pinged = descriptor.outputs[1]
        #expect(HostSide.string(greeted.event) == "greeted")
        #expect(HostSide.string(greeted.description) == "Said hello.")
        #expect(HostSide.fields(greeted.payload, greeted.payload_count)
                == ["count:\(GRAFT_TYPE_NUMBER)", "meta:\(GRAFT_TYPE_OBJECT)", "name:\(GRAFT_TYPE_STRING)",
                    "tags:\(GRAFT_TYPE_LIST)"])
        #expect(HostSide.string(pinged.event) == "pinged")
        #expect(pinged.description == nil && pinged.payload == nil && pinged.payload_count == 0)
        #expect(HostSide.string(descriptor.debug_config) == #"{"loud":false,"name":"Ada","tags":["a","b"],"times":2}"#)
    }

    @Test("debug_config escapes strings and keeps fractions")
    func debugConfigEscaping() throws {
        let descriptor = try #require(HostSide.componentDescriptor(1))
        #expect(descriptor.version == 2)
        #expect(HostSide.string(descriptor.debug_config) == #"{"name":"Ada","times":2.5,"title":"Dr. \"Q\"\n\u0001"}"#)
    }

    @Test("a component that declares nothing has NULL arrays and an empty debug_config")
    func minimalDescriptor() throws {
        let descriptor = try #require(HostSide.componentDescriptor(2))
        #expect(descriptor.name == nil && descriptor.description == nil)
        #expect(descriptor.inputs == nil && descriptor.input_count == 0)
        #expect(descriptor.outputs == nil && descriptor.output_count == 0)
        #expect(HostSide.string(descriptor.debug_config) == "{}")
    }

    @Test("validators are generic, sorted by name, with params in declared order")
    func validatorDescriptors() throws {
        let factory = HostSide.validators
        #expect(factory.pointee.count!(factory) == 2)
        let first = try #require(factory.pointee.get_descriptor!(factory, 0)?.pointee)
        #expect(HostSide.string(first.name) == "always_invalid" && first.version == 3)
        #expect(first.message == nil && first.params == nil && first.param_count == 0)
        #expect(factory.pointee.get_descriptor!(factory, 2) == nil)

        let minLength = try #require(HostSide.validatorDescriptor(named: "min_length"))
        #expect(minLength.version == 1 && minLength.kind == GRAFT_VALIDATOR_GENERIC)
        #expect(HostSide.fields(minLength.params, minLength.param_count)
                == ["min:\(GRAFT_TYPE_STRING)", "unit:\(GRAFT_TYPE_STRING)"])
        #expect(HostSide.string(minLength.message) == "is too short")
        #expect(minLength.signature == nil && minLength.function == nil && minLength.validate != nil)
        // One C function serves every validator: graft.h passes the descriptor as `self`.
        let a = unsafeBitCast(first.validate!, to: UnsafeRawPointer.self)
        let b = unsafeBitCast(minLength.validate!, to: UnsafeRawPointer.self)
        #expect(a == b)
    }

    @Test("actions are sorted by key, with params sorted by name")
    func actionDescriptors() throws {
        let factory = HostSide.actions
        #expect(factory.pointee.count!(factory) == 2)
        let concat = try #require(factory.pointee.get_descriptor!(factory, 0)?.pointee)
        let fail = try #require(factory.pointee.get_descriptor!(factory, 1)?.pointee)
        #expect(HostSide.string(concat.key) == "concat" && concat.version == 1)
        #expect(HostSide.fields(concat.params, concat.param_count)
                == ["into:\(GRAFT_TYPE_STRING)", "left:\(GRAFT_TYPE_STRING)", "right:\(GRAFT_TYPE_STRING)"])
        #expect(HostSide.string(fail.key) == "fail" && fail.version == 2)
        #expect(fail.params == nil && fail.param_count == 0 && fail.name == nil)
        #expect(factory.pointee.get_descriptor!(factory, 2) == nil)
    }
}
