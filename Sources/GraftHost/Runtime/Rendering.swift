@_exported import GraftTypes

extension Rendering {
    package init(mediaType: MediaType, text: String) {
        self.init(text: text, mediaType: mediaType)
    }
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
