/// What a component rendered. When `mediaType` differs from the requested
/// one, GraftKit tells the host through `writer->set_media_type`.
public struct Rendering: Sendable, Hashable {
    public var text: String
    public var mediaType: MediaType

    public init(text: String, mediaType: MediaType) {
        self.text = text
        self.mediaType = mediaType
    }
}
