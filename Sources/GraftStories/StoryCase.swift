import GraftHost

/// One story to run: whose component it is, the story, and where it came from.
public struct StoryCase: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        /// The component's debugConfig, as a story named `debugConfig`.
        case debugConfig
        /// A story the plugin declares (ABI 1.3).
        case declared
        /// A story in a story file.
        case file(String)
    }

    public var pluginID: String
    public var component: ComponentReference
    public var story: PlayStory
    public var source: Source

    public init(pluginID: String, component: ComponentReference, story: PlayStory, source: Source) {
        self.pluginID = pluginID
        self.component = component
        self.story = story
        self.source = source
    }

    public var file: String? { if case .file(let path) = source { path } else { nil } }
    /// `paywall@1 › sale`.
    public var title: String { "\(component.key)@\(component.version) › \(story.name)" }
}

/// What running a story gave.
public struct StoryOutcome: Sendable, Hashable {
    public enum Snapshot: Sendable, Hashable {
        case matched(String)
        case written(String)
        case updated(String)
        /// The file, and where the render first differs.
        case differs(String, String)
        /// Not compared: the story failed before its render.
        case none
    }

    public var storyCase: StoryCase
    public var steps: [StepResult]
    /// Why the story could not run to its end (an instance that could not be made, a render that failed).
    public var error: GraftError?
    public var snapshot: Snapshot
    /// axe's serious and critical findings in the HTML render (`graft test --a11y`); none when not checked.
    public var accessibility: [String] = []
    public var seconds: Double

    public var failures: [String] {
        var said = steps.filter { !$0.passed }.map { "step \($0.index + 1), \($0.step.summary): \($0.failure ?? "")" }
        if let error { said.append("\(error.code.rawValue): \(error.message)") }
        said += accessibility.map { "inaccessible_render: \($0)" }
        if case .differs(let path, let detail) = snapshot {
            said.append("snapshot_mismatch: the render is not its snapshot \(path): \(detail) (graft test --update writes it).")
        }
        return said
    }

    public var passed: Bool { failures.isEmpty }
}
