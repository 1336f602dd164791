import FoundationEssentials
import GraftCommandLine
import GraftHost
import GraftSupport

/// Graft's Swift SDK as a package of its own: GraftKit, the types it shares with hosts (GraftTypes) and graft.h, with no
/// dependencies. `graft new swift` writes it into the project (GraftKit/) so that a plugin resolves nothing, builds
/// offline and outlives the Graft checkout it was made from; `graft sdk --swift-package FOLDER` writes or refreshes
/// it. The files are Graft's own, embedded through the links in Sources/graft/SDK (Package.swift lists them).
enum SwiftSDK {
    /// The first line of the SDK's Package.swift after the tools version: what tells a copy to refresh from a
    /// folder that is someone else's.
    static let mark = "// Graft's Swift SDK"

    static var manifest: String {
        """
        // swift-tools-version: 6.0
        \(mark) \(GraftHost.version), written by graft (refresh: graft sdk --swift-package FOLDER). Do not edit.
        import PackageDescription

        let package = Package(
            name: "GraftKit",
            platforms: [.macOS(.v15)],
            products: [.library(name: "GraftKit", targets: ["GraftKit"])],
            targets: [
                .target(name: "CGraft", exclude: ["include/graft_wasm_bridge.c"]),
                .target(name: "GraftTypes"),
                .target(name: "GraftKit", dependencies: ["CGraft", "GraftTypes"]),
            ]
        )

        """
    }

    /// Each file's path in the SDK's package, and its bytes.
    static let sources: [(path: String, bytes: [UInt8])] = [
        ("Sources/CGraft/graft.c", PackageResources.graft_c),
        ("Sources/CGraft/include/graft.h", PackageResources.graft_h),
        ("Sources/CGraft/include/graft_host_support.h", PackageResources.graft_host_support_h),
        ("Sources/CGraft/include/graft_wasm.h", PackageResources.graft_wasm_h),
        ("Sources/CGraft/include/graft_wasm_bridge.c", PackageResources.graft_wasm_bridge_c),
        ("Sources/GraftKit/Actions/ActionInvocation.swift", PackageResources.ActionInvocation_swift),
        ("Sources/GraftKit/Actions/ActionResult.swift", PackageResources.ActionResult_swift),
        ("Sources/GraftKit/Actions/RegisteredAction.swift", PackageResources.RegisteredAction_swift),
        ("Sources/GraftKit/Bridge/ActionBridge.swift", PackageResources.ActionBridge_swift),
        ("Sources/GraftKit/Bridge/CValueArena.swift", PackageResources.CValueArena_swift),
        ("Sources/GraftKit/Bridge/CWriter.swift", PackageResources.CWriter_swift),
        ("Sources/GraftKit/Bridge/ComponentFactoryFunctions.swift", PackageResources.ComponentFactoryFunctions_swift),
        ("Sources/GraftKit/Bridge/DescriptorOwners.swift", PackageResources.DescriptorOwners_swift),
        ("Sources/GraftKit/Bridge/DescriptorTables.swift", PackageResources.DescriptorTables_swift),
        ("Sources/GraftKit/Bridge/FactoryID.swift", PackageResources.FactoryID_swift),
        ("Sources/GraftKit/Bridge/HostConnection.swift", PackageResources.HostConnection_swift),
        ("Sources/GraftKit/Bridge/InstanceBox.swift", PackageResources.InstanceBox_swift),
        ("Sources/GraftKit/Bridge/InstanceFunctions.swift", PackageResources.InstanceFunctions_swift),
        ("Sources/GraftKit/Bridge/LiveGate.swift", PackageResources.LiveGate_swift),
        ("Sources/GraftKit/Bridge/PermanentMemory.swift", PackageResources.PermanentMemory_swift),
        ("Sources/GraftKit/Bridge/PluginImage.swift", PackageResources.PluginImage_swift),
        ("Sources/GraftKit/Bridge/RegistrationCheck.swift", PackageResources.RegistrationCheck_swift),
        ("Sources/GraftKit/Bridge/Registry.swift", PackageResources.Registry_swift),
        ("Sources/GraftKit/Bridge/ValidatorBridge.swift", PackageResources.ValidatorBridge_swift),
        ("Sources/GraftKit/Bridge/Value+CValue.swift", PackageResources.Value_CValue_swift),
        ("Sources/GraftKit/Components/ComponentContext.swift", PackageResources.ComponentContext_swift),
        ("Sources/GraftKit/Components/ComponentProps.swift", PackageResources.ComponentProps_swift),
        ("Sources/GraftKit/Components/ComponentStory.swift", PackageResources.ComponentStory_swift),
        ("Sources/GraftKit/Components/ContainerSize.swift", PackageResources.ContainerSize_swift),
        ("Sources/GraftKit/Components/CustomComponent.swift", PackageResources.CustomComponent_swift),
        ("Sources/GraftKit/Components/CustomComponentDefinition.swift", PackageResources.CustomComponentDefinition_swift),
        ("Sources/GraftKit/Components/InputType.swift", PackageResources.InputType_swift),
        ("Sources/GraftKit/Components/InteractionSchema.swift", PackageResources.InteractionSchema_swift),
        ("Sources/GraftKit/Components/LogLevel.swift", PackageResources.LogLevel_swift),
        ("Sources/GraftKit/Components/OutputSchema.swift", PackageResources.OutputSchema_swift),
        ("Sources/GraftKit/Components/RenderRequest.swift", PackageResources.RenderRequest_swift),
        ("Sources/GraftKit/Plugin/GraftPlugin.swift", PackageResources.GraftPlugin_swift),
        ("Sources/GraftKit/Plugin/InProcessPlugin.swift", PackageResources.InProcessPlugin_swift),
        ("Sources/GraftKit/Plugin/PluginInfo.swift", PackageResources.PluginInfo_swift),
        ("Sources/GraftKit/Plugin/PluginPermission.swift", PackageResources.PluginPermission_swift),
        ("Sources/GraftKit/Plugin/PluginRegistration.swift", PackageResources.PluginRegistration_swift),
        ("Sources/GraftKit/Plugin/RegisteredComponent.swift", PackageResources.RegisteredComponent_swift),
        ("Sources/GraftKit/Validators/RegisteredValidator.swift", PackageResources.RegisteredValidator_swift),
        ("Sources/GraftKit/Validators/ValidationResult.swift", PackageResources.ValidationResult_swift),
        ("Sources/GraftKit/Values/JSONText.swift", PackageResources.JSONText_swift),
        ("Sources/GraftKit/Values/Value+Accessors.swift", PackageResources.Value_Accessors_swift),
        ("Sources/GraftKit/Values/Value+Literals.swift", PackageResources.Value_Literals_swift),
        ("Sources/GraftKit/Values/Value.swift", PackageResources.Value_swift),
        ("Sources/GraftTypes/Rendering.swift", PackageResources.Rendering_swift),
    ]

    /// Whether `folder` holds a copy of the SDK that graft wrote.
    static func isCopy(_ folder: String) -> Bool {
        let manifest = (try? String(contentsOfFile: folder + "/Package.swift", encoding: .utf8)) ?? ""
        return manifest.split(separator: "\n").dropFirst().first?.hasPrefix(mark) == true
    }

    /// Writes the SDK into `folder`, which must be missing, empty or an earlier copy: an earlier copy's sources are
    /// replaced whole, so a file the new SDK dropped goes too.
    static func write(to folder: String) throws(CommandLineError) {
        let files = FileManager.default
        if let entries = try? files.contentsOfDirectory(atPath: folder), !entries.isEmpty {
            guard isCopy(folder) else {
                throw CommandLineError(
                    .projectExists, "\(folder) is not empty and holds no copy of Graft's Swift SDK; nothing was written (choose another folder).",
                    path: folder)
            }
            for module in ["CGraft", "GraftTypes", "GraftKit"] { try? files.removeItem(atPath: "\(folder)/Sources/\(module)") }
        }
        for (path, bytes) in [("Package.swift", Array(manifest.utf8))] + sources {
            let target = folder + "/" + path
            do {
                try files.createDirectory(atPath: FilePaths.folder(of: target), withIntermediateDirectories: true)
                try Data(bytes).write(to: URL(fileURLWithPath: target))
            } catch {
                throw CommandLineError(.projectExists, "\(target) could not be written: \(error).", path: target)
            }
        }
    }
}
