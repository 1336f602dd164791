import CGraft
import Testing

/// The entry and the plugin's lifecycle. Serialized: `init`/`deinit` swap the
/// image's one host connection.
@Suite("Entry and lifecycle", .serialized)
struct EntryTests {
    @Test("the entry carries the header's ABI version, its size and the plugin's identity")
    func entryFields() {
        let entry = HostSide.entry.pointee
        #expect(entry.abi.major == UInt32(GRAFT_ABI_MAJOR))
        #expect(entry.abi.minor == UInt32(GRAFT_ABI_MINOR))
        #expect(Int(entry.struct_size) == MemoryLayout<graft_plugin_entry_t>.stride)
        #expect(HostSide.string(entry.id) == "dev.graft.kit-test")
        #expect(HostSide.string(entry.version) == "0.0.1")
        #expect(HostSide.string(entry.name) == "GraftKit test plugin")
        #expect(HostSide.string(entry.vendor) == "Graft tests")
        #expect(entry.description == nil)
        #expect(entry.`init` != nil && entry.`deinit` != nil && entry.get_factory != nil)
        #expect(graftKitTestEntry() == graftKitTestEntry(), "the entry is one static struct")
    }

    @Test("init accepts a host of the same ABI major, logs through it, and deinit lets it go")
    func initAndDeinit() {
        let host = FakeHost(abiMinor: 7)
        #expect(HostSide.entry.pointee.`init`!(host.pointer))
        let context = FakeComponentContext()
        #expect(HostSide.create("no_such_component", version: 1, inputs: [:], context: context) == nil)
        #expect(host.logs.contains("2 GraftKit: dev.graft.kit-test has no component \"no_such_component\" version 1."))

        HostSide.entry.pointee.`deinit`!()
        let linesAfterDeinit = host.logs.count
        #expect(HostSide.create("no_such_component", version: 1, inputs: [:], context: context) == nil)
        #expect(host.logs.count == linesAfterDeinit, "no logging through a host after deinit")
    }

    @Test("init refuses a host of another ABI major, saying both versions")
    func initRefusesOtherMajor() {
        let host = FakeHost(abiMajor: 2, abiMinor: 0)
        #expect(!HostSide.entry.pointee.`init`!(host.pointer))
        #expect(host.logs == ["3 GraftKit: dev.graft.kit-test was built for Graft ABI 1.3; the host speaks 2.0."])
        #expect(!HostSide.entry.pointee.`init`!(nil))
    }

    @Test("the declared permissions are read through graft.permissions/1, each with its kind, ports or folder, and reason")
    func permissions() throws {
        let table = try #require(HostSide.factory(GRAFT_PERMISSIONS_ID, as: graft_permissions_t.self))
        #expect(table.pointee.count!(table) == 3)
        let connect = try #require(table.pointee.get!(table, 0)).pointee
        #expect(connect.kind == UInt32(GRAFT_PERMISSION_CONNECT))
        #expect(connect.port_count == 2 && connect.ports?[0] == 443 && connect.ports?[1] == 8443)
        #expect(HostSide.string(connect.reason) == "Fetches the forecast.")
        let read = try #require(table.pointee.get!(table, 1)).pointee
        #expect(read.kind == UInt32(GRAFT_PERMISSION_READ) && HostSide.string(read.path) == "/srv/assets")
        #expect(try #require(table.pointee.get!(table, 2)).pointee.kind == UInt32(GRAFT_PERMISSION_DATA))
        #expect(table.pointee.get!(table, 3) == nil)
    }

    @Test("get_factory returns each factory by the header's ids and NULL for any other id")
    func factories() {
        #expect(HostSide.factory(GRAFT_COMPONENT_FACTORY_ID, as: graft_component_factory_t.self) != nil)
        #expect(HostSide.factory(GRAFT_VALIDATOR_FACTORY_ID, as: graft_validator_factory_t.self) != nil)
        #expect(HostSide.factory(GRAFT_ACTION_FACTORY_ID, as: graft_action_factory_t.self) != nil)
        #expect(HostSide.factory("graft.component-factory/2", as: graft_component_factory_t.self) == nil)
        #expect(HostSide.factory("", as: graft_component_factory_t.self) == nil)
        #expect(HostSide.entry.pointee.get_factory!(nil) == nil)
        // The same factory every time.
        #expect(HostSide.components == HostSide.components)
    }
}
