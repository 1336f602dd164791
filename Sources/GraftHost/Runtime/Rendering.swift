/// A media type a host asks a component to render in.
public struct MediaType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// For terminals and logs.
    public static let plain = MediaType(rawValue: "text/plain")
    /// For pages.
    public static let html = MediaType(rawValue: "text/html")

    public var description: String { rawValue }
}

/// What one render produced.
public struct Rendering: Sendable, Hashable {
    public package(set) var mediaType: MediaType
    public package(set) var text: String

    package init(mediaType: MediaType, text: String) {
        self.mediaType = mediaType
        self.text = text
    }
}

/// The size of the container an instance renders into, in points; 0 means
/// unbounded.
public struct ContainerSize: Sendable, Hashable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public static let unbounded = ContainerSize(width: 0, height: 0)
}

/// An event a component emitted, with the drift warnings it raised.
public struct EmittedEvent: Sendable, Hashable {
    public package(set) var instanceID: String
    public package(set) var component: ComponentReference
    public package(set) var pluginID: String
    public package(set) var event: String
    /// The payload object, or nil when the component sent none.
    public package(set) var payload: GraftValue?
    public package(set) var warnings: [GraftWarning]
}
