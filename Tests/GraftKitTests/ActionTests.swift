import CGraft
import GraftKit
import Testing

@Suite("Actions through C")
struct ActionTests {
    private func invoke(_ key: String, params: Value, payload: Value?) throws -> (ok: Bool, context: FakeActionContext) {
        let pointer = try #require(HostSide.actionDescriptorPointer(named: key))
        let descriptor = pointer.pointee
        let tree = CTree()
        let context = FakeActionContext()
        let ok = descriptor.invoke!(pointer, tree.pointer(params), payload.map { tree.pointer($0) }, context.pointer)
        return (ok, context)
    }

    @Test("success sets the variables in name order, then the result")
    func success() throws {
        let run = try invoke("concat", params: ["left": "a", "right": "b", "into": "joined"], payload: ["suffix": "!"])
        #expect(run.ok)
        #expect(run.context.variables == ["calls=1", #"joined="ab!""#])
        #expect(run.context.results == [#"{"length":3}"#])
        #expect(run.context.errors.isEmpty)
        #expect(run.context.logs == ["\(GRAFT_LOG_INFO) concat ran"])
    }

    @Test("a NULL payload reaches Swift as nil")
    func nullPayload() throws {
        let run = try invoke("concat", params: ["left": "a", "right": "b", "into": "joined"], payload: nil)
        #expect(run.ok && run.context.variables == ["calls=1", #"joined="ab""#])
    }

    @Test("failure sets the error and no variable", arguments: ["concat", "fail"])
    func failure(key: String) throws {
        let run = try invoke(key, params: ["right": "b"], payload: nil)
        #expect(!run.ok)
        #expect(run.context.errors == [key == "fail" ? "it failed on purpose" : "concat needs left and into"])
        #expect(run.context.variables.isEmpty && run.context.results.isEmpty)
    }
}
