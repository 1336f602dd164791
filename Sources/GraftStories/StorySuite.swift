import FoundationEssentials
import GraftHost
import GraftSupport

/// Every story of the plugins a host loaded: each component's debugConfig, the stories its plugin declares, and
/// those of the story files found (in `stories/` beside each plugin file, and in the folders given). Each runs on an
/// instance of its own, made through the host like any other (isolated and sandboxed as the host is configured).
public struct StorySuite: Sendable {
    public let host: GraftHost
    /// Folders of story files to read beside those next to each plugin.
    public var storyFolders: [String]
    /// Only these plugins' stories (by id); nil for all.
    public var pluginIDs: Set<String>?
    public var snapshots: Snapshots
    /// Judges an HTML render's accessibility (axe in a browser, for `graft test --a11y`): its findings, none when it
    /// passes. Nil: not judged.
    public var accessibility: (@Sendable (Rendering) throws -> [String])?

    public init(host: GraftHost, storyFolders: [String] = [], pluginIDs: Set<String>? = nil, snapshots: Snapshots) {
        self.host = host
        self.storyFolders = storyFolders
        self.pluginIDs = pluginIDs
        self.snapshots = snapshots
    }

    /// The stories to run, in the plugins' order, and the story files that could not be used (`invalid_story`,
    /// `custom_component_not_found`), each naming its file.
    public func collect() -> (cases: [StoryCase], problems: [GraftError]) {
        let plugins = host.plugins.filter { pluginIDs?.contains($0.id) ?? true }
        var cases: [StoryCase] = []
        for plugin in plugins {
            for contract in plugin.components {
                let reference = ComponentReference(key: contract.key, version: contract.version)
                cases.append(StoryCase(pluginID: plugin.id, component: reference, story: PlayStory(name: "debugConfig"), source: .debugConfig))
                for story in contract.stories {
                    cases.append(StoryCase(
                        pluginID: plugin.id, component: reference,
                        story: PlayStory(name: story.name, description: story.description, inputs: story.config), source: .declared))
                }
            }
        }
        var problems: [GraftError] = []
        var folders = storyFolders
        for plugin in plugins {
            // Plugins side by side share one stories/ folder: listed once.
            let beside = FilePaths.joined(FilePaths.folder(of: plugin.path), "stories")
            if !folders.contains(beside) { folders.append(beside) }
        }
        var readFiles = Set<String>()
        for folder in folders {
            for path in StoryFile.files(in: folder) where readFiles.insert(FilePaths.resolvingSymlinks(path)).inserted {
                let file: StoryFile
                do throws(GraftError) { file = try StoryFile.read(path) } catch {
                    problems.append(error)
                    continue
                }
                let registered: RegisteredComponent
                do throws(GraftError) { registered = try host.resolve(file.component) } catch {
                    // A file for no loaded component is a problem whatever the run asked for: every folder read is
                    // one beside a plugin asked for, or one given.
                    problems.append(GraftError(.invalidStory, "the story file \(path) is for \(file.component), which no loaded plugin has: \(error.message)", path: path, key: file.component.key))
                    continue
                }
                guard pluginIDs?.contains(registered.pluginID) ?? true else { continue }
                let reference = ComponentReference(key: registered.reference.key, version: registered.reference.version)
                for story in file.stories {
                    if let earlier = cases.first(where: { $0.pluginID == registered.pluginID && $0.component == reference && $0.story.name == story.name }) {
                        let where_ = earlier.file.map { "the story file \($0)" } ?? "the plugin \(registered.pluginID)"
                        problems.append(GraftError(
                            .invalidStory, "the story file \(path): the story \"\(story.name)\" of \(reference) is also in \(where_); give it another name.",
                            path: path, key: reference.key))
                        continue
                    }
                    cases.append(StoryCase(pluginID: registered.pluginID, component: reference, story: story, source: .file(path)))
                }
            }
        }
        // Each component's stories together, in the plugins' order: the debugConfig, the declared ones, the files'.
        var groups: [(pluginID: String, component: ComponentReference, cases: [StoryCase])] = []
        for storyCase in cases {
            if let at = groups.firstIndex(where: { $0.pluginID == storyCase.pluginID && $0.component == storyCase.component }) {
                groups[at].cases.append(storyCase)
            } else {
                groups.append((storyCase.pluginID, storyCase.component, [storyCase]))
            }
        }
        return (groups.flatMap(\.cases), problems)
    }

    /// Plays a story on an instance of its own, then renders it and checks its snapshot.
    public func run(_ storyCase: StoryCase, number: Int) -> StoryOutcome {
        let started = ContinuousClock.now
        var outcome = play(storyCase, number: number)
        outcome.seconds = Self.seconds(since: started)
        return outcome
    }

    private func play(_ storyCase: StoryCase, number: Int) -> StoryOutcome {
        var outcome = StoryOutcome(storyCase: storyCase, steps: [], error: nil, snapshot: .none, seconds: 0)
        let play: InstancePlay
        do throws(GraftError) {
            play = try InstancePlay(
                host: host, component: ComponentReference(key: storyCase.component.key, version: storyCase.component.version, plugin: storyCase.pluginID),
                story: storyCase.story, instanceID: "story-\(number)")
        } catch {
            outcome.error = error
            return outcome
        }
        defer { play.close() }
        for (index, step) in storyCase.story.play.enumerated() {
            outcome.steps.append(StoryStepper.perform(step, index: index, on: play))
            // A render after each step that acts, as the workbench's Play shows one: a component's warnings while
            // rendering count alike in both.
            if step.acts { _ = try? play.render() }
        }
        do throws(GraftError) {
            let rendering = try play.render()
            outcome.snapshot = snapshots.check(rendering, of: storyCase, stepsPassed: outcome.steps.allSatisfy(\.passed))
            if let accessibility, rendering.mediaType == .html {
                do { outcome.accessibility = try accessibility(rendering) } catch {
                    outcome.accessibility = ["the accessibility check of \(storyCase.title) could not run: \(error)"]
                }
            }
        } catch {
            outcome.error = error
        }
        return outcome
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
