import CGraftSystem
import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// The few POSIX socket calls the endpoint and the client share, with the
/// `sockaddr_un` plumbing in one place.
enum UnixSocket {
    /// The longest socket path the kernel takes (`sun_path` less its NUL).
    static var maximumPathLength: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }

    /// A new stream socket, close-on-exec, optionally non-blocking.
    static func make(nonBlocking: Bool) throws(GraftError) -> Int32 {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let descriptor = socket(AF_UNIX, type, 0)
        guard descriptor >= 0 else { throw failure("cannot create a Unix socket") }
        return descriptor
    }

    /// Accepts one pending client, non-blocking and close-on-exec from the
    /// start (`accept4`, through a C shim: Swift's Glibc module hides it), so
    /// a process the host spawns meanwhile never inherits it; -1 (with
    /// errno) when none is pending.
    static func accept(_ listener: Int32) -> Int32 {
        graft_accept_cloexec_nonblocking(listener)
    }

    /// Calls `body` with `path` as a `sockaddr`. Throws when the path is too long.
    static func withAddress<Result>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) throws(GraftError) -> Result {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else {
            throw GraftError(
                .endpointUnavailable,
                "the socket path '\(path)' is \(bytes.count) bytes; Unix socket paths are 1 to \(maximumPathLength) bytes without NUL.",
                path: path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Connects `descriptor` to `path`; returns errno (0 on success).
    static func connect(_ descriptor: Int32, to path: String) throws(GraftError) -> Int32 {
        try withAddress(path) { address, length in
            Glibc.connect(descriptor, address, length) == 0 ? 0 : errno
        }
    }

    /// Sends as much of `bytes` as the socket takes now; never raises SIGPIPE.
    /// Returns the count sent, 0 when the socket would block, nil when the
    /// peer is gone or the socket failed.
    static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        while true {
            let sent = Glibc.send(descriptor, base, bytes.count, Int32(MSG_NOSIGNAL))
            if sent >= 0 { return sent }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: return nil
            }
        }
    }

    static func failure(_ what: String, path: String? = nil) -> GraftError {
        GraftError(.endpointUnavailable, "\(what): \(String(cString: strerror(errno))).", path: path)
    }
}
