import CGraft
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The `graft_host_t` one plugin receives at `init`, kept alive until the
/// plugin is unloaded. Its log callback writes to the host's logger, tagged
/// with the plugin's file.
package final class HostHandle: @unchecked Sendable {
    // Immutable after init; the C struct is only read by the plugin.
    package let pointer: UnsafeMutablePointer<graft_host_t>
    private let logger: Logger
    private let name: UnsafeMutablePointer<CChar>
    private let version: UnsafeMutablePointer<CChar>
    private let path: UnsafeMutablePointer<CChar>

    package init(path: String, logger: Logger) {
        // The plugin's path goes with each message, not into the logger: setting
        // metadata makes some handlers (StreamLogHandler) format all of it again,
        // for every plugin loaded, while few plugins ever log.
        self.logger = logger
        name = strdup("graft")
        version = strdup(GraftHost.version)
        self.path = strdup(path)
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: graft_host_t())
        // C's sizeof includes tail padding: Swift's stride, not its size.
        pointer.pointee.struct_size = UInt32(MemoryLayout<graft_host_t>.stride)
        pointer.pointee.abi = graft_header_abi_version()
        pointer.pointee.name = UnsafePointer(name)
        pointer.pointee.version = UnsafePointer(version)
        pointer.pointee.plugin_path = UnsafePointer(self.path)
        pointer.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        pointer.pointee.log = { host, level, message in
            guard let data = host?.pointee.host_data, let message else { return }
            Unmanaged<HostHandle>.fromOpaque(data).takeUnretainedValue().log(level: level, String(cString: message))
        }
        pointer.pointee.get_extension = { _, _ in nil }
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
        free(name)
        free(version)
        free(path)
    }

    func log(level: UInt32, _ message: String) {
        logger.log(
            level: Logger.Level(graftLevel: level), "\(message)", metadata: ["plugin": .string(String(cString: path))])
    }
}

extension Logger.Level {
    init(graftLevel level: UInt32) {
        switch level {
        case UInt32(GRAFT_LOG_DEBUG): self = .debug
        case UInt32(GRAFT_LOG_INFO): self = .info
        case UInt32(GRAFT_LOG_WARNING): self = .warning
        default: self = .error
        }
    }
}
