/// The media type of a rendering, such as `text/plain` or `text/html`.
public struct MediaType: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `text/plain`, what terminals ask for.
    public static let plain = MediaType(rawValue: "text/plain")
    /// `text/html`, what pages ask for.
    public static let html = MediaType(rawValue: "text/html")
}
