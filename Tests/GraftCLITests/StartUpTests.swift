import Foundation
import GraftTestSupport
import Testing

/// Every Graft process starts with its binary: `graft list` answers from the
/// cache in a few milliseconds, and a scanner child is started per new
/// folder. Full Foundation (CoreFoundation, ICU and their relocations) cost
/// each of them about half a millisecond before `main`; FoundationEssentials
/// has all they use. A module that imports `Foundation` brings it back: this
/// says which binary did.
@Suite struct StartUpTests {
    @Test("graft and graft-child link FoundationEssentials, not Foundation")
    func noFullFoundation() throws {
        for name in ["graft", "graft-child"] {
            let binary = try Data(contentsOf: BuildProducts.product(name))
            // A dynamic build names the libraries it needs, each ending in a NUL.
            #expect(binary.range(of: Data("libFoundationEssentials.so\0".utf8)) != nil, "\(name) does not name FoundationEssentials: is this a static build?")
            #expect(binary.range(of: Data("libFoundation.so\0".utf8)) == nil, "\(name) links full Foundation: some module it uses imports Foundation instead of FoundationEssentials")
        }
    }

    /// The web stack (Hummingbird, NIO) added about a third to `graft`'s
    /// relocations, paid at every start of every command: it lives in
    /// `graft-workbench`, which `graft workbench` runs.
    @Test("only graft-workbench carries the web server")
    func webStackOnlyInTheWorkbench() throws {
        let mangledModule = Data("11Hummingbird".utf8)
        let workbench = try Data(contentsOf: BuildProducts.product("graft-workbench"))
        #expect(workbench.range(of: mangledModule) != nil, "graft-workbench should carry Hummingbird (the probe itself is wrong otherwise)")
        for name in ["graft", "graft-child"] {
            let binary = try Data(contentsOf: BuildProducts.product(name))
            #expect(binary.range(of: mangledModule) == nil, "\(name) links Hummingbird: only graft-workbench should")
        }
    }

    /// `graft workbench` without its executable says what is missing and how
    /// to build it, instead of failing to exec.
    @Test("graft workbench without graft-workbench: workbench_not_found")
    func workbenchMissing() throws {
        let scratch = try Scratch()
        let lonely = scratch.file("graft")
        try FileManager.default.copyItem(at: BuildProducts.graft(), to: lonely)
        let result = try runCommand(lonely, ["workbench", "--port", "0"], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(60))
        #expect(result.status == 2)
        #expect(result.stderr.contains("workbench_not_found"))
        #expect(result.stderr.contains("graft-workbench"))
    }

    /// The same for `graft bench` without `graft-bench`; with it beside,
    /// the arguments reach it (its own usage error, exit 2).
    @Test("graft bench without graft-bench: bench_not_found; with it, the arguments are forwarded")
    func benchMissing() throws {
        let scratch = try Scratch()
        let lonely = scratch.file("graft")
        try FileManager.default.copyItem(at: BuildProducts.graft(), to: lonely)
        let result = try runCommand(lonely, ["bench", "validators"], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(60))
        #expect(result.status == 2)
        #expect(result.stderr.contains("bench_not_found: no graft-bench found"), "\(result.stderr)")
        let forwarded = try runCommand(BuildProducts.graft(), ["bench", "no-such-part"], timeout: .seconds(60))
        #expect(forwarded.status == 2)
        #expect(forwarded.stderr.contains("'no-such-part' is invalid for '<parts>'"), "\(forwarded.stderr)")
    }
}
