import FoundationEssentials
import GraftHost
import GraftSupport

/// A story file: one component's stories, each with its inputs, container size and play steps, in a project beside
/// the plugin (`stories/paywall.stories.json`). Its format is `graft.story-file/1`, described in docs/Stories.md.
public struct StoryFile: Sendable, Hashable {
    public static let schema = "graft.story-file/1"
    /// What a story file's name ends with.
    public static let suffix = ".stories.json"
    /// A story file is read up to this size.
    static let limit = 1 << 20

    public var path: String
    public var component: ComponentReference
    public var stories: [PlayStory]

    public init(path: String, component: ComponentReference, stories: [PlayStory]) {
        self.path = path
        self.component = component
        self.stories = stories
    }

    /// Reads and checks a story file. Errors: `invalid_story`, naming the file and where in it.
    public static func read(_ path: String) throws(GraftError) -> StoryFile {
        let text = try BoundedFile.text(at: path, what: "the story file", code: .invalidStory, limit: limit)
        return try StoryFile(parsing: text, path: path)
    }

    public init(parsing text: String, path: String) throws(GraftError) {
        let value: GraftValue
        do throws(GraftError) { value = try GraftValue(json: text) } catch {
            throw GraftError(.invalidStory, "the story file \(path) \(error.message)", path: path)
        }
        do throws(StoryProblem) {
            try self.init(value, path: path)
        } catch {
            throw GraftError(.invalidStory, "the story file \(path): \(error.place) \(error.reason).", path: path)
        }
    }

    private init(_ value: GraftValue, path: String) throws(StoryProblem) {
        guard let object = value.objectValue else { throw StoryProblem("its top", "is not an object") }
        guard object["schema"] == .string(Self.schema) else {
            throw StoryProblem("\"schema\"", "is \(object["schema"]?.jsonText ?? "missing"); this graft reads \"\(Self.schema)\"")
        }
        if let stray = object.keys.filter({ !["schema", "component", "stories"].contains($0) }).sorted().first {
            throw StoryProblem("\"\(stray)\"", "is not a member of a story file (it has \"schema\", \"component\" and \"stories\")")
        }
        guard let name = object["component"]?.stringValue, let reference = try? ComponentReference(parsing: name) else {
            throw StoryProblem("\"component\"", "needs the component as KEY@VERSION (or PLUGIN/KEY@VERSION)")
        }
        guard case .list(let list)? = object["stories"] else { throw StoryProblem("\"stories\"", "is not a list of stories") }
        var stories: [PlayStory] = []
        for (index, story) in list.enumerated() {
            let parsed = try PlayStory(parsing: story, at: "stories[\(index)]")
            if stories.contains(where: { $0.name == parsed.name }) {
                throw StoryProblem("stories[\(index)].name", "\"\(parsed.name)\" is the name of an earlier story")
            }
            stories.append(parsed)
        }
        self.init(path: path, component: reference, stories: stories)
    }

    /// The file as it is written: its members and each story's in a stable order, indented.
    public var text: String {
        let value: GraftValue = ["schema": .string(Self.schema), "component": .string(component.description), "stories": .list(stories.map(\.jsonValue))]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(value.jsonText.utf8), as: UTF8.self) + "\n"
    }

    /// Writes the file atomically (a temporary file beside it, then a rename). Errors: `invalid_story`.
    public func write() throws(GraftError) {
        do {
            try FileManager.default.createDirectory(atPath: FilePaths.folder(of: path), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw GraftError(.invalidStory, "could not write the story file \(path): \(error)", path: path)
        }
    }

    /// The story files in `folder`, by name; none when it is missing.
    public static func files(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(suffix) && !$0.hasPrefix(".") }.sorted().map { FilePaths.joined(folder, $0) }
    }
}
