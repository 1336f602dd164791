/// What the host asks a component to render.
public struct RenderRequest: Sendable, Hashable {
    /// The media type the host prefers: ``MediaType/plain``, ``MediaType/html`` or another.
    public var mediaType: MediaType
    public var containerSize: ContainerSize

    public init(mediaType: MediaType, containerSize: ContainerSize) {
        self.mediaType = mediaType
        self.containerSize = containerSize
    }
}
