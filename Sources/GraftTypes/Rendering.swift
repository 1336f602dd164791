/// The types a plugin (GraftKit) and a host (GraftHost) both speak of, one of
/// each: GraftKit and GraftHost re-export this module, so a host app, a plugin
/// and a test that imports both see the same `MediaType`, `Rendering` and
/// `ContainerSize`.

/// A media type a host asks a component to render in, such as `text/plain` or `text/html`.
public struct MediaType: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `text/plain`: for terminals and logs.
    public static let plain = MediaType(rawValue: "text/plain")
    /// `text/html`: for pages.
    public static let html = MediaType(rawValue: "text/html")

    public var description: String { rawValue }
}

/// What one render produced. When `mediaType` differs from the one asked
/// for, the component answered in another type.
public struct Rendering: Sendable, Hashable {
    public var text: String
    public var mediaType: MediaType

    public init(text: String, mediaType: MediaType) {
        self.text = text
        self.mediaType = mediaType
    }
}

/// The size of the container a component renders into, in points; zero means
/// unbounded (a terminal treats one point as one column).
public struct ContainerSize: Sendable, Hashable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public static let unbounded = ContainerSize(width: 0, height: 0)
}
