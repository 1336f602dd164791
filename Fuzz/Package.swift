// swift-tools-version: 6.1
// Fuzz targets for what Graft reads from code it does not trust: the wire
// frames a child sends, JSON text (debugConfigs, flows, params), and the
// descriptors a plugin declares. Built apart from the main package, with
// libFuzzer (see Tests/Scripts/fuzz.sh):
//
//   swift build -c debug -Xswiftc -sanitize=fuzzer
//
// Each target's main hands its one-input function to libFuzzer's driver.
import PackageDescription

let package = Package(
    name: "GraftFuzz",
    dependencies: [.package(name: "Graft", path: "..", traits: ["Host"])],
    targets: [
        .target(name: "CFuzz"),
        .executableTarget(name: "fuzz-wire", dependencies: ["CFuzz", .product(name: "GraftHost", package: "Graft")]),
        .executableTarget(name: "fuzz-json", dependencies: ["CFuzz", .product(name: "GraftHost", package: "Graft")]),
        .executableTarget(name: "fuzz-descriptors", dependencies: ["CFuzz", .product(name: "GraftHost", package: "Graft")]),
    ]
)
