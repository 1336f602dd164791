import Foundation
import GraftHost
import GraftWebDriver

#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket client for `/live`, just enough to read what the server
/// pushes: the upgrade handshake, then unmasked text frames. Every read has
/// a deadline.
/// `@unchecked Sendable`: a test reads it from one thread at a time.
final class LiveProbe: @unchecked Sendable {
    let socket: Int32
    /// The answer to the upgrade request (101 when it was accepted).
    let handshake: HTTPAnswer
    private var buffer: [UInt8] = []

    /// Asks to upgrade `/live` with the given headers (the token, an Origin).
    init(port: Int, headers: [(String, String)], host: String? = nil) throws {
        socket = try HTTPProbe.connect(port: port, timeout: .seconds(10))
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var lines = [
            "GET /live HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13",
        ]
        lines += headers.map { "\($0.0): \($0.1)" }
        try HTTPProbe.write(socket, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        (handshake, buffer) = try Self.readHandshake(socket)
    }

    /// The head of the answer, and what followed it (frames, already).
    private static func readHandshake(_ socket: Int32) throws -> (HTTPAnswer, [UInt8]) {
        var buffer: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while buffer.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            guard ContinuousClock.now < deadline, let chunk = receive(socket) else { break }
            buffer += chunk
        }
        guard let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) else { return (try HTTPProbe.parse(buffer), []) }
        var head = try HTTPProbe.parse(Array(buffer[..<end.upperBound]))
        buffer.removeFirst(end.upperBound)
        if head.status != 101 {
            // A refusal is a whole HTTP answer: read its body too.
            buffer += (try? HTTPProbe.readAll(socket, deadline: .now + .seconds(5))) ?? []
            head.body = String(decoding: buffer, as: UTF8.self)
            buffer = []
        }
        return (head, buffer)
    }

    private static func receive(_ socket: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(chunk[..<count]) : nil
    }

    deinit { close(socket) }

    /// The next text message as JSON, or nil when none came before the deadline.
    func next(within timeout: Duration = .seconds(10)) throws -> GraftValue? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let text = try takeFrame() { return try GraftValue(json: text) }
            guard ContinuousClock.now < deadline else { return nil }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            if poll(&poller, 1, milliseconds) > 0 { guard try fill() else { return nil } }
        }
    }

    /// The first message that `matches`, skipping others, within `timeout`.
    func first(within timeout: Duration = .seconds(10), where matches: (GraftValue) -> Bool) throws -> GraftValue? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = try next(within: deadline - ContinuousClock.now) else { return nil }
            if matches(message) { return message }
        }
        return nil
    }

    private func fill() throws -> Bool {
        guard let chunk = Self.receive(socket) else { return false }
        buffer += chunk
        return true
    }

    /// One complete text frame from the buffer, if there is one (server frames are unmasked).
    private func takeFrame() throws -> String? {
        while buffer.count >= 2 {
            let opcode = buffer[0] & 0x0F
            var length = Int(buffer[1] & 0x7F)
            var offset = 2
            if length == 126 {
                guard buffer.count >= 4 else { return nil }
                length = Int(buffer[2]) << 8 | Int(buffer[3])
                offset = 4
            } else if length == 127 {
                guard buffer.count >= 10 else { return nil }
                length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
                offset = 10
            }
            guard buffer.count >= offset + length else { return nil }
            let payload = Array(buffer[offset..<(offset + length)])
            buffer.removeFirst(offset + length)
            if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
            if opcode == 0x8 { throw HTTPFailure(description: "the server closed the live channel") }
        }
        return nil
    }
}
