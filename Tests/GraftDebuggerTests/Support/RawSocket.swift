import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A bare Unix socket client for sending what a well-behaved client never
/// would (half lines, huge lines). Every send and receive times out after
/// `timeout`, so a test can never hang on the host.
final class RawSocket {
    let descriptor: Int32
    private var pending: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String, timeout: TimeInterval = 5) throws {
        // Close-on-exec: a child another test spawns meanwhile must not keep
        // this end open after the test closes it (the server would not see EOF).
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            // Not closed here: every property is set, so deinit runs and closes it.
            throw Failure(description: "connect \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// Sends everything; false as soon as the host stops taking bytes (it
    /// closed the connection, or the send timed out).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + offset, min(raw.count - offset, 1 << 16), Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 {
                if sent < 0, errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(line: String) -> Bool { send(Array((line + "\n").utf8)) }

    /// The next line; nil at end of stream, on a reset, or after the timeout.
    func readLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeFirst(newline + 1)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }

    /// Whether a line (or the end of the stream) is waiting, or arrives within `limit`.
    func hasInput(within limit: Duration) -> Bool {
        if pending.contains(0x0A) { return true }
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(limit / .milliseconds(1))
        var polled: Int32
        repeat { polled = poll(&ready, 1, milliseconds) } while polled < 0 && errno == EINTR
        return polled == 1
    }

    /// Whether the host has closed the connection: reading reaches the end
    /// (after any lines still queued) before the timeout.
    func isClosedByHost() -> Bool {
        while true {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            if count < 0, errno == EINTR { continue }
            return count == 0 || errno == ECONNRESET
        }
    }
}
