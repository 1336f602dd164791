import CGraft
import GraftKit
import Testing

@Suite("Validators through C")
struct ValidatorTests {
    /// Calls `validate` as a host does; returns the verdict and the written message.
    private func validate(_ name: String, _ value: Value, _ params: [String]?) throws -> (valid: Bool, message: String) {
        let pointer = try #require(HostSide.validatorDescriptorPointer(named: name))
        let descriptor = pointer.pointee
        let tree = CTree()
        let writer = FakeWriter()
        let cParams: [UnsafePointer<CChar>?]? = params?.map { tree.cString($0) }
        let valid = cParams.map { list in
            list.withUnsafeBufferPointer { descriptor.validate!(pointer, tree.pointer(value), $0.baseAddress, UInt32(list.count), writer.pointer) }
        } ?? descriptor.validate!(pointer, tree.pointer(value), nil, 0, writer.pointer)
        return (valid, writer.text)
    }

    @Test("a valid value passes and writes no message")
    func valid() throws {
        let result = try validate("min_length", "hello", ["3", "characters"])
        #expect(result.valid && result.message.isEmpty)
    }

    @Test("an invalid value fails with the validator's own message")
    func invalidWithMessage() throws {
        let result = try validate("min_length", "hi", ["3", "characters"])
        #expect(!result.valid && result.message == "is shorter than 3 characters")
    }

    @Test("invalid(nil) writes nothing, so the host uses the registered message")
    func invalidWithoutMessage() throws {
        let number = try validate("min_length", 12, ["1", "x"])
        #expect(!number.valid && number.message.isEmpty)
        let always = try validate("always_invalid", "anything", nil)
        #expect(!always.valid && always.message.isEmpty)
    }

    @Test("NULL params with a zero count reach Swift as no params")
    func noParams() throws {
        let result = try validate("min_length", "", nil)
        #expect(result.valid)
    }
}
