import Foundation
import GraftTestSupport
import Logging
import Testing

@testable import GraftHost

/// Permissions as capabilities (docs/WasmABI.md, "Permissions"): a `.wasm`
/// plugin's granted data folder is a preopened `/data`, a granted `read:`
/// folder a read-only one, and the host's rules hold around every WASI call.
@Suite("WebAssembly plugins' folders")
struct WasmFoldersTests {
    /// A scratch with the folders plugin built, the folder it declares to read
    /// (holding secret.txt), and a host granting `grants` (nil: what it declares).
    final class Setup {
        let scratch: Scratch
        let host: GraftHost
        let readFolder: URL
        let dataFolder: URL
        let plugin: URL

        init(grants: [Permission]? = nil, dataLimit: UInt64 = SandboxSettings.defaultDataFolderLimit, logger: Logger = quietLogger) throws {
            scratch = try Scratch()
            readFolder = scratch.file("shared")
            try FileManager.default.createDirectory(at: readFolder, withIntermediateDirectories: true)
            try "the secret".write(to: readFolder.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
            // Beside the data folders: what a `..` out of /data would reach.
            try FileManager.default.createDirectory(at: scratch.file("data"), withIntermediateDirectories: true)
            try "outside".write(to: scratch.file("data/outside.txt"), atomically: true, encoding: .utf8)
            dataFolder = scratch.file("data/com.example.folders")
            plugin = try Fixtures.buildWasm(
                "folders", into: scratch.file("plugins"), defines: ["FOLDERS_READ": "\"\(readFolder.path)\""], sources: [Fixtures.wasmBridge])
            let granted = grants ?? [.dataFolder, .read(folder: readFolder.path)]
            var sandbox = SandboxSettings(grants: ["com.example.folders": granted], dataFolder: scratch.file("data").path)
            sandbox.dataFolderLimit = dataLimit
            host = GraftHost(
                configuration: GraftConfiguration(searchPath: SearchPath(folders: [scratch.file("plugins").path]), cacheFolder: nil, sandbox: sandbox),
                logger: logger)
            host.loadPlugins()
        }

        func render(_ act: String) throws -> String {
            try host.makeInstance(of: "files", inputs: ["act": .string(act)]).render(as: .plain).text
        }

        var denials: [SandboxDenial] { host.sandboxDenials(ofPluginAt: plugin.path) }
    }

    @Test("declared permissions cross the bridge, and a guest granted nothing gets no folder")
    func nothingGranted() throws {
        let setup = try Setup(grants: [])
        #expect(setup.host.failures.isEmpty, "\(setup.host.failures.map(\.error))")
        let info = try #require(setup.host.plugins.first)
        #expect(info.permissions.map(\.description) == ["data (keeps notes between runs)", "read:\(setup.readFolder.path) (reads the shared settings)"])
        #expect(try setup.render("env") == "none")
        #expect(try setup.render("write").hasPrefix("write refused"))
        #expect(try setup.render("read").hasPrefix("read refused"))
        #expect(!FileManager.default.fileExists(atPath: setup.dataFolder.path))
    }

    @Test("a granted data folder is /data: written, read back, and kept on the host's disk")
    func dataFolder() throws {
        let setup = try Setup()
        #expect(try setup.render("env") == "/data")
        #expect(try setup.render("write") == "wrote")
        #expect(try setup.render("read-data") == "kept")
        #expect(try String(contentsOf: setup.dataFolder.appendingPathComponent("note.txt"), encoding: .utf8) == "kept")
        #expect(try setup.render("read") == "the secret")
        #expect(setup.denials.isEmpty)
    }

    @Test("nothing under a read: folder is written, made, removed, renamed or linked, and each refusal is reported")
    func readOnly() throws {
        let setup = try Setup()
        #expect(try setup.render("write-read") == "write refused: EROFS")
        #expect(try setup.render("append-read") == "append refused: EROFS")
        #expect(try setup.render("remove-read") == "remove refused: EROFS")
        #expect(try setup.render("mkdir-read") == "mkdir refused: EROFS")
        #expect(try setup.render("rename-out").hasPrefix("rename refused"))
        #expect(try setup.render("link-in").hasPrefix("link refused"))
        #expect(try String(contentsOf: setup.readFolder.appendingPathComponent("secret.txt"), encoding: .utf8) == "the secret")
        let names = try FileManager.default.contentsOfDirectory(atPath: setup.readFolder.path)
        #expect(names == ["secret.txt"])
        let acts = setup.denials.map(\.act)
        #expect(acts.contains("open \(setup.readFolder.path)/new.txt to write"), "\(acts)")
        #expect(acts.contains("remove \(setup.readFolder.path)/secret.txt"), "\(acts)")
        #expect(setup.denials.allSatisfy { $0.code == .sandboxDenied })
    }

    @Test("a path out of /data, through .. or a link, and a folder not granted are refused")
    func escapes() throws {
        let setup = try Setup()
        #expect(try setup.render("escape").hasPrefix("read refused"))
        #expect(try setup.render("escape-link").hasPrefix("read refused"))
        #expect(try setup.render("elsewhere").hasPrefix("read refused"))
    }

    @Test("a FIFO in a granted folder is not opened: it would hold the host's thread")
    func fifo() throws {
        let setup = try Setup()
        let pipe = setup.readFolder.appendingPathComponent("pipe").path
        #expect(mkfifo(pipe, 0o644) == 0)
        // Were the open let through, it would wait for a writer: this one comes, so a regression fails here instead of hanging the run.
        let writer = PipeWriter(pipe)
        #expect(try setup.render("read-pipe") == "read refused: EACCES")
        #expect(!writer.stop(), "the guest's open reached the FIFO")
        #expect(setup.denials.contains { $0.act == "open \(setup.readFolder.path)/pipe, which is not a file or a folder" }, "\(setup.denials)")
        #expect(try setup.render("read") == "the secret")
    }

    @Test("a read: grant of the root, or of /proc, /sys or /dev, is withheld: the guest runs in the host's process")
    func hostWithheld() throws {
        let log = CapturedLog()
        let setup = try Setup(grants: [.read(folder: "/"), .read(folder: "/proc/self/../self")], logger: log.logger)
        let withheld = log.all.map(\.message).filter { $0.hasPrefix("permission_denied: plugin 'com.example.folders'") }
        #expect(withheld.count == 2 && withheld.allSatisfy { $0.contains("which a WebAssembly plugin is not given") }, "\(withheld)")
        #expect(try setup.render("elsewhere").hasPrefix("read refused"))
        #expect(try setup.render("read").hasPrefix("read refused"))
        #expect(WasmGrants.reachesHost("/sys/kernel") && WasmGrants.reachesHost("/dev") && !WasmGrants.reachesHost("/devices"))
    }

    @Test("the data folder stays under its limit (plugin_storage_limit), and at most 64 files are open at once")
    func limits() throws {
        let setup = try Setup(dataLimit: 256 << 10)
        #expect(try setup.render("write") == "wrote")
        let filled = try setup.render("fill")
        #expect(filled.hasSuffix(": EDQUOT"), "\(filled)")
        #expect(FolderQuota.usage(of: setup.dataFolder.path).bytes <= 256 << 10)
        #expect(setup.denials.contains { $0.code == .pluginStorageLimit && $0.act.hasPrefix("write /data/fill.bin") }, "\(setup.denials)")
        #expect(try setup.render("write") == "write refused: EDQUOT", "a full folder takes no file opened to create, as in a child")
        #expect(try setup.render("read-data") == "kept")
        #expect(try setup.render("many") == "opened 64: EMFILE")
    }

    @Test("a wild pointer to a WASI call fails the call, not the host, and a fresh instance closes the old one's files")
    func wildPointer() throws {
        let setup = try Setup()
        #expect(try setup.render("write") == "wrote")
        #expect(try setup.render("many") == "opened 64: EMFILE")
        #expect(Self.openFiles(under: setup.dataFolder.path) >= 64)
        let error = #expect(throws: GraftError.self) { try setup.render("wild") }
        #expect(error?.code == .pluginCrashed)
        #expect(error?.message.contains("outside its memory") == true, "\(String(describing: error))")
        #expect(Self.openFiles(under: setup.dataFolder.path) == 0, "the trapped instance's descriptors are closed with it")
        #expect(try setup.render("read-data") == "kept")
    }

    /// How many of this process's descriptors are open on files under `folder`.
    static func openFiles(under folder: String) -> Int {
        let resolved = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)") else { return false }
            return target == resolved || target.hasPrefix(resolved + "/")
        }
    }

    /// Waits at a FIFO's writing end, so that a reader opening it is let go and recorded:
    /// what unblocks an open that should never have started.
    final class PipeWriter: @unchecked Sendable {
        private let path: String
        private let lock = NSLock()
        private var stopped = false
        private var opened = false
        private let done = DispatchSemaphore(value: 0)

        init(_ path: String) {
            self.path = path
            Thread.detachNewThread { [self] in
                let fd = open(path, O_WRONLY)  // returns once a reader opens the other end
                // Set before the close that lets a guest's read end: stop() cannot have run yet.
                lock.withLock { if !stopped { opened = true } }
                if fd >= 0 { close(fd) }
                done.signal()
            }
        }

        /// Lets the writer go (by opening the reading end) and says whether anyone else opened the FIFO first.
        func stop() -> Bool {
            lock.withLock { stopped = true }
            let reader = open(path, O_RDONLY | O_NONBLOCK)
            done.wait()
            if reader >= 0 { close(reader) }
            return lock.withLock { opened }
        }
    }
}
