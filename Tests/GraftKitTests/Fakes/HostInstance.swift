import CGraft
import GraftKit

/// A live C instance and the host-side calls into it.
final class HostInstance {
    let pointer: UnsafePointer<graft_component_instance_t>
    let context: FakeComponentContext

    init(pointer: UnsafePointer<graft_component_instance_t>, context: FakeComponentContext) {
        self.pointer = pointer
        self.context = context
    }

    func render(_ mediaType: String, into writer: FakeWriter = FakeWriter()) -> (ok: Bool, writer: FakeWriter) {
        let ok = pointer.pointee.render!(pointer, mediaType, writer.pointer)
        return (ok, writer)
    }

    func interact(_ action: String, data: Value? = nil) -> Bool {
        let tree = CTree()
        return pointer.pointee.interact!(pointer, action, data.map { tree.pointer($0) })
    }

    func update(_ inputs: Value) -> Bool {
        let tree = CTree()
        return pointer.pointee.update_inputs!(pointer, tree.pointer(inputs))
    }

    func saveState() -> (ok: Bool, state: String) {
        let writer = FakeWriter()
        let ok = pointer.pointee.save_state!(pointer, writer.pointer)
        return (ok, writer.text)
    }

    func loadState(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                pointer.pointee.load_state!(pointer, $0.baseAddress, $0.count)
            }
        }
    }

    func destroy() {
        pointer.pointee.destroy!(pointer)
        context.markDestroyed()
    }
}
