// swift-tools-version: 6.1
import Foundation
import PackageDescription

let package = Package(
    name: "Graft",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "graft", targets: ["graft"]),
        .executable(name: "graft-bench", targets: ["graft-bench"]),
        .executable(name: "graft-example-host", targets: ["graft-example-host"]),
        .executable(name: "graft-example-server", targets: ["graft-example-server"]),
        // The child process hosts start to load plugins they have not seen yet (see DESIGN.md, Trust and isolation).
        .executable(name: "graft-child", targets: ["graft-child"]),
        .executable(name: "graft-workbench", targets: ["graft-workbench"]),
        .library(name: "GraftHost", targets: ["GraftHost"]),
        .library(name: "GraftDebugger", targets: ["GraftDebugger"]),
        .library(name: "GraftFlows", targets: ["GraftFlows"]),
        .library(name: "GraftKit", targets: ["GraftKit"]),
        .library(name: "GraftInProcess", targets: ["GraftInProcess"]),
        .library(name: "GraftWorkbench", targets: ["GraftWorkbench"]),
        .library(name: "GraftService", targets: ["GraftService"]),
        // First-party plugins: each is a shared library the host loads at run time.
        .library(name: "DatePicker", type: .dynamic, targets: ["DatePicker"]),
        .library(name: "Checkout", type: .dynamic, targets: ["Checkout"]),
    ],
    // Who needs which dependency. A plugin needs GraftKit alone: `graft new swift` names Graft with `traits: []`, and
    // SwiftPM then resolves none of the packages below. A host app that embeds GraftHost names `traits: ["Host"]`
    // (or `["Service"]` for GraftService) and leaves the web stack out.
    traits: [
        .trait(name: "Host", description: "GraftHost, GraftFlows, GraftDebugger: swift-log, swift-crypto, swift-metrics, swift-distributed-tracing."),
        .trait(name: "Service", description: "GraftService, a host as a swift-service-lifecycle Service.", enabledTraits: ["Host"]),
        .trait(
            name: "WebAssembly", description: "WebAssembly plugins (.wasm files), run in process by WasmKit: GraftHost's third side.",
            enabledTraits: ["Host"]),
        .trait(
            name: "Tools", description: "The graft command, the workbench (Hummingbird), the benches and the examples.",
            enabledTraits: ["Service", "WebAssembly"]),
        .default(enabledTraits: ["Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // The workbench's web server and its live channel. Only GraftWorkbench depends on them; the
        // default traits (swift-configuration support) are left off, since nothing here reads them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Per-plugin metrics and a span around each plugin call: nothing is recorded until the app bootstraps a backend.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // WebAssembly plugins: the interpreter, and its WASI host file system for the folders a plugin is granted
        // (Graft gives a guest only what docs/WasmABI.md lists). Its default traits stay on: SwiftPM at times builds WasmKit's own command-line target, which
        // needs every one of them.
        .package(url: "https://github.com/swiftwasm/WasmKit", from: "0.4.2"),
    ],
    targets: [
        // The C ABI: graft.h is the only contract between host and plugins.
        // graft_wasm_bridge.c is for plugins built as WebAssembly (docs/WasmABI.md), installed beside graft.h.
        .target(name: "CGraft", path: "Sources/CGraft", exclude: ["include/graft_wasm_bridge.c"]),
        // libffi, for calling plugins' native validator functions.
        .systemLibrary(
            name: "CFFI", path: "Sources/CFFI", pkgConfig: "libffi",
            providers: [.apt(["libffi-dev"])]),

        // libsodium, for publishers' signatures in minisign's format (Ed25519 over BLAKE2b, scrypt-sealed keys).
        .systemLibrary(
            name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),

        // What Swift cannot say itself on Linux: membarrier, a compiler barrier, a thread-local slot, accept4, CPU affinity.
        .target(name: "CGraftSystem", path: "Sources/CGraftSystem"),
        // The sandbox every child applies to itself before it maps a plugin (Landlock, and a seccomp filter
        // built with libseccomp), and the host's side of that filter.
        .target(name: "CGraftSandbox", path: "Sources/CGraftSandbox", linkerSettings: seccompLinkerSettings),

        // What every Graft module shares and that knows nothing of plugins: a lock and a condition, paths, text.
        .target(name: "GraftSupport", dependencies: ["CGraftSystem"]),
        // Minisign's keys and signatures: read, verified and made (libsodium's Ed25519 and BLAKE2b).
        .target(name: "GraftMinisign", dependencies: ["CSodium"]),
        .target(
            name: "GraftHost",
            dependencies: [
                "CGraft", "CFFI", "CGraftSystem", "CGraftSandbox", "GraftTypes", "GraftSupport", "GraftMinisign",
                product("Logging", "swift-log"),
                product("Crypto", "swift-crypto"),
                product("CoreMetrics", "swift-metrics"),
                product("Tracing", "swift-distributed-tracing"),
                product("WasmKit", "WasmKit"),
                product("WasmKitWASI", "WasmKit"),
                product("WASI", "WasmKit"),
            ]),
        // `graft check --conformance`: the tests a plugin author runs, each in a scanner child of its own.
        .target(
            name: "GraftConformance",
            dependencies: ["GraftHost", "GraftSupport", "CGraft", "CGraftSystem", product("Logging", "swift-log")]),
        .executableTarget(
            name: "graft-child", dependencies: ["GraftHost", "GraftConformance"], linkerSettings: executableLinkerSettings),
        // Flow documents: editor definitions, the contract checker, the headless runner.
        .target(name: "GraftFlows", dependencies: ["GraftHost", "GraftSupport"]),
        .target(name: "GraftDebugger", dependencies: ["GraftHost", "GraftFlows", "GraftSupport", "CGraftSystem"]),
        // Stories as tests: story files, their play steps, snapshots and JUnit reports (`graft test`, the workbench's play panel).
        .target(name: "GraftStories", dependencies: ["GraftHost", "GraftSupport"]),
        // A host as a swift-service-lifecycle Service, for Swift servers: started and stopped by a ServiceGroup.
        .target(
            name: "GraftService",
            dependencies: ["GraftHost", "GraftDebugger", "GraftSupport", product("ServiceLifecycle", "swift-service-lifecycle")]),
        // The workbench: a local web page over the report, the sandbox, the action log, flows and hot swap.
        // The only module that depends on Hummingbird.
        .target(
            name: "GraftWorkbench",
            dependencies: [
                "GraftHost", "GraftDebugger", "GraftFlows", "GraftStories", "GraftWebDriver", "GraftSupport",
                product("Hummingbird", "hummingbird"),
                product("HummingbirdWebSocket", "hummingbird-websocket"),
                product("NIOCore", "swift-nio"),
                product("HTTPTypes", "swift-http-types"),
                product("ServiceLifecycle", "swift-service-lifecycle"),
                product("Logging", "swift-log"),
            ],
            // The page, its sheet, its icon and the parts of its script, embedded in the binary.
            resources: [
                "index.html", "app.css", "icon.svg", "core.js", "layout.js", "plugins.js", "sidebar.js", "fields.js", "accessibility.js", "component.js", "actions.js", "tryout.js",
                "flow.js", "attach.js", "start.js",
            ].map { .embedInCode("Resources/\($0)") }),
        // A small WebDriver client (chromedriver, headless Chromium) over loopback HTTP: the workbench's browser
        // tests and `graft bench workbench` drive the page with it. JSON through GraftHost's values.
        .target(name: "GraftWebDriver", dependencies: ["GraftHost", "GraftSupport", "CGraftSystem"]),
        // In-process Swift components (GraftKit definitions) registered into a host, for tests and host apps.
        .target(name: "GraftInProcess", dependencies: ["GraftHost", "GraftKit"]),
        .target(name: "GraftKit", dependencies: ["CGraft", "GraftTypes"]),
        // The types GraftKit and GraftHost share (media type, rendering, container size): both re-export it.
        .target(name: "GraftTypes"),
        // What Graft's executables share: the global options, output and exit codes, the workbench's options.
        .target(
            name: "GraftCommandLine",
            dependencies: [
                "GraftHost", "GraftFlows", "GraftSupport",
                product("ArgumentParser", "swift-argument-parser"),
                product("Logging", "swift-log"),
            ]),
        // `graft workbench` runs this executable, so that no other command loads the web stack.
        .executableTarget(
            name: "graft-workbench",
            dependencies: [
                "GraftCommandLine", "GraftWorkbench", "GraftHost", "GraftSupport",
                product("ArgumentParser", "swift-argument-parser"),
                product("Logging", "swift-log"),
            ]),
        .executableTarget(
            name: "graft",
            dependencies: [
                "GraftHost", "GraftConformance", "GraftDebugger", "GraftFlows", "GraftStories", "GraftWebDriver", "GraftCommandLine", "GraftSupport",
                "GraftMinisign", "CGraftSystem",
                product("ArgumentParser", "swift-argument-parser"),
                product("Logging", "swift-log"),
            ],
            exclude: ["SDK/GraftKit/Documentation.docc"],
            // Its own code only: the SDK's Swift files under SDK/ are resources, never compiled into graft.
            sources: ["Graft.swift", "Commands", "Conformance", "Debug", "Flows", "NewPlugin"],
            // `graft new`'s project templates and the Swift SDK it copies into a project, embedded in the binary.
            resources: [
                "c-plugin.c", "c-test_plugin.c", "c-Makefile", "c-README.md", "stories.json", "swift-Package.swift", "swift-exports.map",
                "swift-Plugin.swift", "swift-Component.swift", "swift-MaxLength.swift", "swift-Greet.swift",
                "swift-Tests.swift", "swift-README.md",
            ].map { .embedInCode("Templates/\($0).template") } + swiftSDKFiles.map { .embedInCode($0) },
            linkerSettings: executableLinkerSettings),
        // The benchmarks, which `graft bench` runs (exec): kept out of `graft`'s image.
        .executableTarget(
            name: "graft-bench",
            dependencies: [
                "GraftHost", "GraftDebugger", "GraftCommandLine", "GraftWebDriver", "CGraftSystem", "GraftInProcess", "GraftKit", "GraftSupport",
                "GraftMinisign",
                product("ArgumentParser", "swift-argument-parser"),
                product("Logging", "swift-log"),
            ]),

        // A host app with its debug endpoint on, for `graft debug attach`.
        .executableTarget(
            name: "graft-example-host",
            dependencies: [
                "GraftHost", "GraftDebugger", "GraftFlows",
                product("ArgumentParser", "swift-argument-parser"),
                product("Logging", "swift-log"),
            ],
            path: "Examples/HostApp", exclude: ["README.md"]),
        // A Hummingbird server rendering a flow's screens with plugin components, per request (what `graft bench server` drives).
        .executableTarget(
            name: "graft-example-server",
            dependencies: [
                "GraftHost", "GraftDebugger", "GraftFlows", "GraftService",
                product("ArgumentParser", "swift-argument-parser"),
                product("Hummingbird", "hummingbird"),
                product("NIOPosix", "swift-nio"),
                product("ServiceLifecycle", "swift-service-lifecycle"),
                product("Logging", "swift-log"),
            ],
            path: "Examples/FlowServer", exclude: ["README.md"]),

        .target(
            name: "DatePicker", dependencies: ["GraftKit"], path: "Plugins/DatePicker", exclude: ["stories"], linkerSettings: pluginLinkerSettings),
        .target(
            name: "Checkout", dependencies: ["CGraft"], path: "Plugins/Checkout", exclude: ["stories"], linkerSettings: pluginLinkerSettings),

        // Test helpers shared by the test targets: compiling fixture plugins, running the CLI.
        .target(name: "GraftTestSupport", path: "Tests/GraftTestSupport"),
        .testTarget(
            name: "GraftHostTests",
            dependencies: [
                "GraftHost", "GraftDebugger", "GraftSupport", "GraftMinisign", "CGraft", "CGraftSandbox", "GraftTestSupport",
                product("MetricsTestKit", "swift-metrics"),
                product("InMemoryTracing", "swift-distributed-tracing"),
            ]),
        .testTarget(name: "GraftConformanceTests", dependencies: ["GraftConformance", "GraftHost", "GraftTestSupport"]),
        .testTarget(name: "GraftKitTests", dependencies: ["GraftKit", "CGraft"]),
        .testTarget(
            name: "GraftServiceTests",
            dependencies: [
                "GraftService", "GraftHost", "GraftTestSupport",
                product("ServiceLifecycle", "swift-service-lifecycle"),
                product("Logging", "swift-log"),
            ]),
        .testTarget(name: "GraftFlowsTests", dependencies: ["GraftFlows", "GraftHost", "GraftTestSupport"]),
        .testTarget(
            name: "GraftInProcessTests",
            dependencies: ["GraftInProcess", "GraftHost", "GraftKit", "GraftFlows", "GraftTestSupport"]),
        .testTarget(name: "GraftCLITests", dependencies: ["GraftTestSupport", "GraftWebDriver"]),
        // The graft executable's own code: how its commands read their arguments.
        .testTarget(
            name: "GraftCommandTests",
            dependencies: [
                "graft", "GraftCommandLine", "GraftTestSupport", product("ArgumentParser", "swift-argument-parser"),
            ]),
        .testTarget(
            name: "GraftWorkbenchTests",
            dependencies: [
                "GraftWorkbench", "GraftWebDriver", "GraftHost", "GraftDebugger", "GraftFlows", "GraftMinisign", "GraftTestSupport",
                product("Hummingbird", "hummingbird"), product("HummingbirdTesting", "hummingbird"),
                product("HummingbirdWebSocket", "hummingbird-websocket"),
            ]),
        .testTarget(name: "GraftStoriesTests", dependencies: ["GraftStories", "GraftHost", "GraftTestSupport"]),
        .testTarget(name: "GraftDebuggerTests", dependencies: ["GraftDebugger", "GraftHost", "GraftFlows", "GraftTestSupport"]),
    ]
)

/// A plugin library exports `graft_entry` alone (Plugins/exports.map). An unsafe flag, so only these two plugin
/// products carry it: a package that depends on Graft for GraftHost or GraftKit is not affected.
var pluginLinkerSettings: [LinkerSetting] {
    [.unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Plugins/exports.map"])]
}

/// `-static-stdlib` links executables with `-export-dynamic`, which puts every symbol of every package module in the
/// dynamic symbol table: plugins could bind to the host's internals, `--gc-sections` must keep all of them, and each
/// process start pays for the larger tables. Graft's plugins reach the host only through graft.h's function pointers.
var executableLinkerSettings: [LinkerSetting] {
    [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))]
}

/// libseccomp, linked statically: every Graft process links the sandbox (the host answers its children's filters),
/// and loading one more shared library would cost each `graft` and each child at start. Debian's libseccomp-dev
/// ships the archive.
var seccompLinkerSettings: [LinkerSetting] {
    [.unsafeFlags(["-Xlinker", "-Bstatic", "-Xlinker", "-lseccomp", "-Xlinker", "-Bdynamic"], .when(platforms: [.linux]))]
}

/// A product of one of the packages above, which SwiftPM resolves only when a trait that needs it is on.
func product(_ name: String, _ package: String) -> Target.Dependency {
    let trait = [
        "swift-log": "Host", "swift-crypto": "Host", "swift-metrics": "Host", "swift-distributed-tracing": "Host",
        "swift-service-lifecycle": "Service", "WasmKit": "WebAssembly",
    ][package] ?? "Tools"
    return .product(name: name, package: package, condition: .when(traits: [trait]))
}

/// The Swift SDK that `graft new swift` writes into a project: CGraft, GraftTypes and GraftKit's sources, through the
/// links in Sources/graft/SDK, so that the binary embeds the same files the package builds. SwiftPM reads this
/// manifest again only when it changes: after adding a file to those modules, list it in SwiftSDK.sources and save
/// Package.swift once.
var swiftSDKFiles: [String] {
    ["CGraft", "GraftTypes", "GraftKit"].flatMap { module in
        let folder = "\(Context.packageDirectory)/Sources/\(module)"
        return (FileManager.default.subpaths(atPath: folder) ?? [])
            .filter { [".swift", ".h", ".c"].contains(where: $0.hasSuffix) && !$0.contains(".docc/") }
            .map { "SDK/\(module)/\($0)" }
    }.sorted()
}
