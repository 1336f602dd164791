import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP answer: status, headers (lower-cased names), body.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: String

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

public struct HTTPFailure: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// A tiny HTTP/1.1 client for servers on 127.0.0.1, over a plain socket:
/// chromedriver speaks HTTP + JSON, and the workbench's tests must control
/// every byte a browser would send (a hostile Host or Origin, no token).
/// Every wait has a deadline. Blocking: call it off the cooperative pool.
public enum HTTPProbe {
    /// Sends one request to 127.0.0.1:`port` (`Connection: close`) and reads
    /// the whole answer. `host` is the Host header, `nil` for none.
    public static func request(
        port: Int, method: String = "GET", path: String, host: String? = nil, headers: [(String, String)] = [],
        body: String? = nil, timeout: Duration = .seconds(30)
    ) throws -> HTTPAnswer {
        let socket = try connect(port: port, timeout: timeout)
        defer { close(socket) }
        var lines = ["\(method) \(path) HTTP/1.1"]
        if let host = host ?? "127.0.0.1:\(port)" as String?, !host.isEmpty { lines.append("Host: \(host)") }
        for (name, value) in headers { lines.append("\(name): \(value)") }
        let bodyBytes = Array((body ?? "").utf8)
        if body != nil { lines.append("Content-Length: \(bodyBytes.count)") }
        lines.append("Connection: close")
        try write(socket, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + bodyBytes)
        return try parse(readAnswer(socket, deadline: .now + timeout))
    }

    public static func connect(port: Int, timeout: Duration) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw HTTPFailure(description: "socket: \(String(cString: strerror(errno)))") }
        // Whole seconds and the microseconds beyond them: a timeout under a second was 0, which the kernel reads as none.
        var seconds = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw HTTPFailure(description: "connect to 127.0.0.1:\(port): \(reason)")
        }
        return socket
    }

    public static func write(_ socket: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(socket, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw HTTPFailure(description: "send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Reads one answer: up to its Content-Length, the end of its chunks, or
    /// the peer closing (some servers, chromedriver among them, keep the
    /// connection open whatever `Connection: close` asked).
    static func readAnswer(_ socket: Int32, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline {
            if let end = data.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
                let fields = head.components(separatedBy: "\r\n")
                if let length = fields.first(where: { $0.hasPrefix("content-length:") }).flatMap({ Int($0.dropFirst(15).trimmingSpaces) }),
                    data.count - end.upperBound >= length
                {
                    return Array(data[..<(end.upperBound + length)])
                }
                if fields.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }),
                    data[end.upperBound...].firstRange(of: Array("0\r\n\r\n".utf8)) != nil
                {
                    return data
                }
                if let status = fields.first?.split(separator: " ").dropFirst().first, ["101", "204", "304"].contains(String(status)) {
                    return data
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw HTTPFailure(description: "no answer before the deadline (\(data.count) bytes so far)") }
                throw HTTPFailure(description: "recv: \(String(cString: strerror(errno)))")
            }
            data += chunk[..<count]
        }
        throw HTTPFailure(description: "no complete answer before the deadline")
    }

    /// Reads until the peer closes or the deadline passes.
    public static func readAll(_ socket: Int32, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw HTTPFailure(description: "no answer before the deadline (\(data.count) bytes so far)") }
                throw HTTPFailure(description: "recv: \(String(cString: strerror(errno)))")
            }
            data += chunk[..<count]
        }
        throw HTTPFailure(description: "no complete answer before the deadline")
    }

    public static func parse(_ data: [UInt8]) throws -> HTTPAnswer {
        guard let end = data.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw HTTPFailure(description: "not an HTTP answer: \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw HTTPFailure(description: "bad status line \(head[0])") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        var body = Array(data[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return HTTPAnswer(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
    }

    private static func dechunk(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = data.startIndex
        while let lineEnd = data[index...].firstRange(of: Array("\r\n".utf8)) {
            let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText, radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard start + size <= data.endIndex else { break }
            out += data[start..<(start + size)]
            index = min(start + size + 2, data.endIndex)
        }
        return out
    }

    /// A port nobody listens on now (bound, then released).
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(socket, pointer, length) == 0 else { return -1 }
                return getsockname(socket, pointer, &length)
            }
        }
        guard bound == 0 else { throw HTTPFailure(description: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
