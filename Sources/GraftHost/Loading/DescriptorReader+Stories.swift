import CGraft
import GraftSupport

extension DescriptorReader {
    static let maximumStories = Int(GRAFT_MAX_STORIES)

    /// The stories the plugin declares (`graft.stories/1`, ABI 1.3), each added to the contract of the component it
    /// names: a declared component, a name that is a key and unique within it, a config of its declared inputs.
    mutating func read(_ stories: UnsafePointer<graft_stories_t>, into components: inout [ComponentContract]) {
        guard let count = stories.pointee.count, let get = stories.pointee.get else {
            problem(.invalidDescriptor, "the stories have a NULL count or get function.", symbol: GRAFT_STORIES_ID)
            return
        }
        let declared = Int(count(stories))
        guard declared <= Self.maximumStories else {
            problem(.invalidDescriptor, "declares \(declared) stories; the most is \(Self.maximumStories).", symbol: GRAFT_STORIES_ID)
            return
        }
        for index in 0..<declared {
            guard let story = get(stories, UInt32(index))?.pointee else {
                problem(.invalidDescriptor, "story #\(index) is NULL although count() is \(declared).", symbol: GRAFT_STORIES_ID)
                continue
            }
            let key = String(plugin: story.component) ?? ""
            let reference = "\(key.escapingControls)@\(story.version)"
            guard let target = components.firstIndex(where: { $0.key == key && $0.version == Int(story.version) }) else {
                problem(.invalidDescriptor, "story #\(index) is for component '\(reference)', which the plugin does not declare.", symbol: GRAFT_STORIES_ID)
                continue
            }
            guard let name = String(plugin: story.name), ComponentReference.isValidKey(name) else {
                problem(
                    .invalidDescriptor, "story #\(index) of '\(reference)' has no name, or one that is not a key (a-z, 0-9, '_', '.', '-').",
                    key: key)
                continue
            }
            guard components[target].story(name) == nil else {
                problem(.invalidDescriptor, "'\(reference)' declares story '\(name)' twice.", key: key)
                continue
            }
            let config = readConfig(story.config, inputs: components[target].inputs, what: "'\(reference)' story '\(name)' config", key: key)
            components[target].stories.append(StorySpec(name: name, description: String(plugin: story.description), config: config))
        }
    }
}
