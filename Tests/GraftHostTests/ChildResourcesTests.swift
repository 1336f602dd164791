import Foundation
import Logging
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

import GraftDebugger
@testable import GraftHost

/// What a plugin leaves behind, takes from others and sees: a child's
/// private folder is a tmpfs of its own, capped in size and files, that goes
/// with it and never touches the host's disk; a data folder stays under its
/// limit (`plugin_storage_limit`); a child with no grant has no network of
/// the machine's; a child that spins with no call in flight is stopped
/// (`plugin_cpu_idle`), and idle children cost nothing.
@Suite("A child's disk, network and CPU")
struct ChildResourcesTests {
    static func host(_ folder: URL, limits: IsolationLimits = IsolationLimits(), sandbox: SandboxSettings = SandboxSettings(), logger: Logger = quietLogger) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, limits: limits, sandbox: sandbox),
            logger: logger)
        host.loadPlugins()
        return host
    }

    static func probe(_ host: GraftHost, _ act: String, _ target: String = "x") throws -> (text: String, warnings: [GraftWarning], pid: Int32?) {
        let probe = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": .string(act), "target": .string(target)])
        defer { probe.close() }
        let text = try probe.render().text
        return (text, probe.warnings, probe.component.runnerProcessID)
    }

    /// What is on the host's disk under `path`, as names (recursively).
    static func contents(of path: String) -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String]) ?? []
    }

    @Test("a tree deeper than PATH_MAX, folders of mode 000 and 0555, 10,000 files and 8 GiB stay in the child's tmpfs, under its caps, and go with it")
    func privateFolderIsATmpfs() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        try Fixtures.build("good_echo", into: folder)
        let host = Self.host(folder, limits: IsolationLimits(call: .seconds(20)))
        let home = String(try Self.probe(host, "environ", "HOME").text.dropFirst("environ: ok ".count))
        #expect(home.contains("graft-child-"), "\(home)")
        #expect(try Self.probe(host, "res_deep_tree").text.hasPrefix("res_deep_tree: ok"), "a tree deeper than PATH_MAX is made")
        #expect(try Self.probe(host, "res_modes").text.hasPrefix("res_modes:"))
        let files = try Self.probe(host, "res_many_files", "10000").text
        #expect(files.hasPrefix("res_many_files: refused ENOSPC"), "the file cap holds: \(files)")
        let filled = try Self.probe(host, "res_fill", "8192")
        #expect(filled.text.hasPrefix("res_fill: refused ENOSPC"), "the size cap holds: \(filled.text)")
        #expect(!filled.text.contains("ENOSPC 8192"))
        // All of it is in the child's own tmpfs: the host's disk holds none of it, while the child lives…
        #expect(Self.contents(of: home).isEmpty, "\(Self.contents(of: home).prefix(5))")
        // …and the folder goes with the child.
        host.shutDown(grace: .seconds(5))
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    @Test("a data folder stays under its limit: writes past it fail with EDQUOT, plugin_storage_limit is reported, graft list says what it keeps")
    func dataFolderLimit() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let data = scratch.url.appendingPathComponent("data")
        let limit: UInt64 = 1 << 20
        let settings = SandboxSettings(grants: ["test.hostile": [.dataFolder]], dataFolder: data.path, dataFolderLimit: limit)
        let host = Self.host(folder, sandbox: settings)
        // A huge data folder: 8 GiB asked, in files of 64 MiB.
        let filled = try Self.probe(host, "res_fill", "data:8192")
        #expect(filled.text.hasPrefix("res_fill: refused"), "\(filled.text)")
        #expect(filled.warnings.contains { $0.code == .pluginStorageLimit && $0.message.contains("'test.hostile'") && $0.message.contains("its data folder") }, "\(filled.warnings)")
        let holds = FolderQuota.usage(of: data.appendingPathComponent("test.hostile").path).bytes
        #expect(holds <= limit + limit / 4 + (64 << 10), "the folder holds \(holds) bytes for a limit of \(limit)")
        // Many small files count too (each at least 4 KiB).
        let small = try Self.probe(host, "data", "one-more.txt")
        #expect(small.text == "data: refused EDQUOT", "\(small.text)")
        #expect(small.warnings.contains { $0.code == .pluginStorageLimit })
        // What it keeps, for people (graft list) and for tools (its JSON).
        let report = PluginReport(host: host)
        #expect(report.text.contains("  data: 1 MiB of 1 MiB, in \(data.path)/test.hostile"), "\(report.text)")
        #expect(report.jsonText.contains("\"data\":{\"bytes\":"), "\(report.jsonText)")
        // Gone with the folder's content, writes work again.
        let kept = data.appendingPathComponent("test.hostile")
        for name in try FileManager.default.contentsOfDirectory(atPath: kept.path) {
            try FileManager.default.removeItem(at: kept.appendingPathComponent(name))
        }
        let again = try Self.probe(host, "data", "again.txt")
        #expect(again.text.hasPrefix("data: ok"), "\(again.text) \(again.warnings)")
    }

    @Test("files opened for writing one by one, across the host's once-a-second walks, stay counted while held: the fifth of a 1 MiB folder is refused")
    func heldFilesStayCounted() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let data = scratch.url.appendingPathComponent("data")
        let limit: UInt64 = 1 << 20  // each file at most a quarter of it
        let settings = SandboxSettings(grants: ["test.hostile": [.dataFolder]], dataFolder: data.path, dataFolderLimit: limit)
        // The plugin takes 400 ms between opens: a deadline that leaves a loaded machine room.
        let host = Self.host(folder, limits: IsolationLimits(call: .seconds(20)), sandbox: settings)
        let held = try Self.probe(host, "res_hold_open", "data:8")
        #expect(held.text == "res_hold_open: refused EDQUOT 4 files held", "\(held.text)")
        #expect(held.warnings.contains { $0.code == .pluginStorageLimit }, "\(held.warnings)")
        let holds = FolderQuota.usage(of: data.appendingPathComponent("test.hostile").path).bytes
        #expect(holds <= limit + limit / 4, "the folder holds \(holds) bytes for a limit of \(limit)")
    }

    @Test("a plugin whose thread spins after its call returned is stopped (plugin_cpu_idle) within two seconds; its next call gets a new child")
    func spinningAfterItsCall() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let log = CapturedLog()
        let host = Self.host(folder, logger: log.logger)
        let spun = try Self.probe(host, "res_spin_after")
        #expect(spun.text == "res_spin_after: ok ")
        let pid = try #require(spun.pid)
        let started = ContinuousClock.now
        #expect(eventually(timeout: .seconds(10)) { kill(pid, 0) != 0 }, "the spinning child was stopped")
        #expect(ContinuousClock.now - started < .seconds(3), "within the documented budget: \(ContinuousClock.now - started)")
        #expect(eventually(timeout: .seconds(5)) { log.all.contains { $0.message.contains("plugin_cpu_idle") && $0.message.contains("test.hostile") } }, "\(log.all.map(\.message))")
        let again = try Self.probe(host, "environ", "HOME")
        #expect(again.text.hasPrefix("environ: ok "))
        #expect(again.pid != nil && again.pid != pid)
        // A call that spins inside its deadline is no idle spinning: its child stays.
        let busy = try Self.probe(host, "res_spin", "800")
        #expect(busy.text == "res_spin: ok 800 ms")
        #expect(!eventually(timeout: .seconds(2)) { busy.pid.map { kill($0, 0) != 0 } ?? true }, "a child busy only in its call keeps running")
    }

    @Test("ten idle children of a host share its empty network and IPC namespaces, and use no measurable CPU (the host's side: graft bench idle)")
    func idleChildren() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        for index in 0..<10 {
            try Fixtures.build(
                "good_widget", into: folder,
                defines: ["WIDGET_ID": "\"test.widget.i\(index)\"", "WIDGET_KEY": "\"widget_i\(index)\""], outputName: "libwidget\(index).so")
        }
        let host = Self.host(folder)
        var pids: [Int32] = []
        for index in 0..<10 {
            let widget = try host.makeInstance(of: ComponentReference(key: "widget_i\(index)"), inputs: ["title": "idle"])
            _ = try widget.render()
            pids.append(try #require(widget.component.runnerProcessID))
        }
        #expect(Set(pids).count == 10)
        // They share one empty network namespace the host keeps, not the host's.
        let networks = Set(pids.compactMap { ChildPath.link("/proc/\($0)/ns/net") })
        #expect(networks.count == 1 && !networks.contains(ChildPath.link("/proc/self/ns/net") ?? ""), "\(networks)")
        // And one IPC namespace, not the host's (its filter refuses every IPC call besides).
        let ipcs = Set(pids.compactMap { ChildPath.link("/proc/\($0)/ns/ipc") })
        #expect(ipcs.count == 1 && !ipcs.contains(ChildPath.link("/proc/self/ns/ipc") ?? ""), "\(ipcs)")
        // Settle (a runner's stand-by thread looks for a second after its last call), then watch for two seconds.
        Thread.sleep(forTimeInterval: 1.5)
        func children() -> Duration { pids.reduce(.zero) { $0 + IdleCPUWatch.cpuTime(ofTree: $1) } }
        let before = children()
        Thread.sleep(forTimeInterval: 2)
        let used = children() - before
        // No measurable CPU: a thousandth of a CPU at most, for ten children.
        #expect(used < .milliseconds(4), "ten idle children used \(used) in two seconds")
        #expect(pids.allSatisfy { kill($0, 0) == 0 }, "no idle child was stopped")
        withExtendedLifetime(host) {}
    }

    @Test("where the kernel refuses the shared empty network, its keeper's end is seen at once, not after the keeper's five-second wait")
    func refusedKeeper() {
        // /bin/false stands for a keeper whose unshare was refused: it exits at once, saying nothing.
        let started = ContinuousClock.now
        #expect(NamespaceKeeper.start("/bin/false") == nil)
        let waited = ContinuousClock.now - started
        #expect(waited < .seconds(4), "graft waited \(waited) for a keeper that had exited")
    }

    @Test("by default a runner child has an address-space limit: a runaway allocation fails (ENOMEM), memory files are bounded too")
    func defaultMemoryLimit() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        #expect(IsolationLimits().memory == 512 << 20)
        let host = Self.host(folder)
        #expect(try Self.probe(host, "res_alloc", "2048").text == "res_alloc: refused ENOMEM")
        #expect(try Self.probe(host, "res_alloc", "64").text == "res_alloc: ok 64 MiB")
        // Memory files count against no address-space limit until mapped: at most eight held at once.
        for index in 0..<8 { #expect(try Self.probe(host, "res_memfd", "1").text.hasPrefix("res_memfd: ok 1 MiB"), "memory file \(index + 1)") }
        let ninth = try Self.probe(host, "res_memfd", "1")
        #expect(ninth.text == "res_memfd: refused EMFILE", "\(ninth.text)")
        #expect(ninth.warnings.contains { $0.code == .sandboxDenied && $0.message.contains("hold more than 8 memory files") }, "\(ninth.warnings)")
    }
}
