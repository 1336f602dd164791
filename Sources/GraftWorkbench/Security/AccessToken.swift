/// The secret in the URL `graft workbench` prints (as Jupyter's): 32 random
/// bytes from the system generator, in hex. Every request must carry it, in
/// the query (`?token=`), the workbench's cookie, or `Authorization: Bearer`.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    /// A new random token.
    public init() {
        var generator = SystemRandomNumberGenerator()
        value = (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }

    /// A given token (tests, and hosts that keep one across restarts).
    public init(_ value: String) {
        self.value = value
    }

    /// Compares in time that does not depend on where the texts differ, so
    /// the token cannot be guessed a byte at a time from response times.
    func matches(_ candidate: Substring) -> Bool {
        let expected = Array(value.utf8), given = Array(candidate.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }

    public var description: String { value }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
