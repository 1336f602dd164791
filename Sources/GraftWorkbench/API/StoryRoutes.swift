import FoundationEssentials
import GraftHost
import GraftStories
import GraftSupport
import Hummingbird
import HummingbirdWebSocket

/// Stories on the page (docs/Stories.md):
/// - `GET /api/stories`: every component's stories (its debugConfig, its plugin's, the story files' beside each
///   plugin and in the workbench's stories folder), with their play steps, and the story files not used;
/// - `POST /api/stories` `{"component", "name", "inputs", "width", "height", "html"}` saves a story into
///   `STORIES/KEY.stories.json` (made, or added to; a story of that name keeps its play steps);
/// - `POST /api/sessions/ID/play` `{"inputs", "width", "height", "html"}` begins a story on the session: a fresh
///   instance, nothing seen yet; renders;
/// - `POST /api/sessions/ID/step` `{"step": {…}, "index": N}` plays one step as `graft test` does and renders:
///   `{"result": {"passed", "failure", "summary", …}, "render": {…}}`.
enum StoryRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.get("/api/stories") { _, _ in
            let (cases, problems) = suite(parts).collect()
            var components: [(plugin: String, component: String, stories: [GraftValue])] = []
            for storyCase in cases {
                let component = "\(storyCase.component.key)@\(storyCase.component.version)"
                let entry = json(storyCase)
                if let at = components.firstIndex(where: { $0.plugin == storyCase.pluginID && $0.component == component }) {
                    components[at].stories.append(entry)
                } else {
                    components.append((storyCase.pluginID, component, [entry]))
                }
            }
            return HTTPReply.json(.object([
                "components": .list(components.map { ["plugin": .string($0.plugin), "component": .string($0.component), "stories": .list($0.stories)] }),
                "problems": .list(problems.map { ["code": .string($0.code.rawValue), "message": .string($0.message)] }),
                "folder": .string(parts.storiesFolder),
            ]))
        }
        router.post("/api/stories") { request, _ in
            let body = try await RequestJSON.object(request)
            let saved = try await parts.calls.run { () throws -> (String, PlayStory) in try save(body, parts: parts) }
            return HTTPReply.json(.object(["file": .string(saved.0), "story": saved.1.jsonValue]), status: .created)
        }
        router.post("/api/sessions/{id}/play") { request, context in
            let session = try parts.sessions.session(context.parameters.get("id") ?? "")
            let body = try await RequestJSON.object(request)
            let size = try containerSize(body)
            return HTTPReply.json(try await session.startPlay(
                inputs: try body.optionalObject("inputs") ?? [:], size: size, mediaType: try body.bool("html", default: true) ? .html : .plain).json)
        }
        router.post("/api/sessions/{id}/step") { request, context in
            let session = try parts.sessions.session(context.parameters.get("id") ?? "")
            let body = try await RequestJSON.object(request)
            let number = try body.number("index", default: 0)
            guard let index = Int(exactly: number), (0...100_000).contains(index) else {
                throw WorkbenchError(.badRequest, status: 400, "\"index\" \(number) is not a step's index: give a whole number from 0 to 100000.")
            }
            let step: PlayStep
            do {
                step = try PlayStep(parsing: body["step"] ?? .null, at: "step \(index + 1)")
            } catch let problem as StoryProblem {
                throw WorkbenchError(GraftError(.invalidStory, "\(problem.place) \(problem.reason)."))
            }
            let (result, report) = try await session.play(step, index: index)
            return HTTPReply.json(.object(["result": result.jsonValue, "render": report.json]))
        }
    }

    /// What `graft test` would run, with this workbench's stories folder; snapshots are `graft test`'s, not read here.
    static func suite(_ parts: WorkbenchParts) -> StorySuite {
        StorySuite(host: parts.host, storyFolders: [parts.storiesFolder], snapshots: Snapshots(folder: "", mode: .strict))
    }

    static func json(_ storyCase: StoryCase) -> GraftValue {
        let source: String
        switch storyCase.source {
        case .debugConfig: source = "debugConfig"
        case .declared: source = "plugin"
        case .file: source = "file"
        }
        var story = storyCase.story.jsonValue.objectValue ?? [:]
        story["source"] = .string(source)
        story["file"] = storyCase.file.map { .string($0) } ?? .null
        story["steps"] = .list(storyCase.story.play.map { .string($0.summary) })
        return .object(story)
    }

    /// Adds the story to its component's file in the stories folder (or replaces the one of its name, keeping its
    /// steps), writing the file atomically.
    static func save(_ body: JSONObject, parts: WorkbenchParts) throws -> (String, PlayStory) {
        let name = try body.string("name")
        guard PlayStory.isPlainName(name) else {
            throw WorkbenchError(GraftError(.invalidStory, "\"\(name)\" is not a story name: use letters, digits, _, - and . (not first), at most 64.", key: name))
        }
        let named = try body.string("component")
        let registered: RegisteredComponent
        do throws(GraftError) { registered = try parts.host.resolve(ComponentReference(parsing: named)) } catch {
            throw WorkbenchError(error)
        }
        let bare = ComponentReference(key: registered.reference.key, version: registered.reference.version)
        // Qualified by its plugin when the bare name answers another plugin, so that graft test plays it on this one.
        let reference = (try? parts.host.resolve(bare))?.pluginID == registered.pluginID
            ? bare : ComponentReference(key: bare.key, version: bare.version, plugin: registered.pluginID)
        // A name the component's stories already use elsewhere (its debugConfig, its plugin's, another file's) would be
        // saved and then never shown: refused, naming where.
        if let taken = suite(parts).collect().cases.first(where: {
            $0.pluginID == registered.pluginID && $0.component == bare && $0.story.name == name
                && (FilePaths.folder(of: $0.file ?? "") != parts.storiesFolder)
        }) {
            let place = taken.file.map { "the story file \($0)" } ?? (taken.source == .debugConfig ? "the debugConfig's" : "the plugin \(taken.pluginID)")
            throw WorkbenchError(GraftError(.invalidStory, "\(bare) already has a story \"\(name)\", in \(place): choose another name.", key: name))
        }
        var story = PlayStory(
            name: name, inputs: try body.optionalObject("inputs") ?? [:], size: try containerSize(body),
            mediaType: try body.bool("html", default: true) ? .html : .plain)
        // One file per component: KEY.stories.json, or KEY@V.stories.json when the first holds another version.
        var chosen: StoryFile?
        let candidates = [bare.key, "\(bare.key)@\(bare.version)"].map { FilePaths.joined(parts.storiesFolder, $0 + StoryFile.suffix) }
        for candidate in candidates {
            guard FileManager.default.fileExists(atPath: candidate) else {
                chosen = StoryFile(path: candidate, component: reference, stories: [])
                break
            }
            let existing: StoryFile
            do throws(GraftError) { existing = try StoryFile.read(candidate) } catch { throw WorkbenchError(error) }
            if existing.component.key == bare.key && existing.component.version == bare.version {
                chosen = existing
                break
            }
        }
        guard var file = chosen else {
            throw WorkbenchError(GraftError(
                .invalidStory, "\(candidates.joined(separator: " and ")) hold other components' stories; move one to save \(bare)'s.",
                path: candidates[0]))
        }
        if let at = file.stories.firstIndex(where: { $0.name == name }) {
            story.description = file.stories[at].description
            story.play = file.stories[at].play
            file.stories[at] = story
        } else {
            file.stories.append(story)
        }
        do throws(GraftError) { try file.write() } catch { throw WorkbenchError(error) }
        return (file.path, story)
    }

    private static func containerSize(_ body: JSONObject) throws(WorkbenchError) -> ContainerSize {
        let width = try body.number("width", default: 0), height = try body.number("height", default: 0)
        for (name, value) in [("width", width), ("height", height)] where !(value.isFinite && value >= 0 && value <= 100_000) {
            throw WorkbenchError(.badRequest, status: 400, "\(name) \(value) is not a container size: give 0 (unbounded) to 100000 points.")
        }
        return ContainerSize(width: width, height: height)
    }
}
