import GraftHost

/// A named story: the inputs a component is created with, the container it is given, the media type it renders in,
/// and the steps played on it (none for a story that only renders).
public struct PlayStory: Sendable, Hashable {
    public var name: String
    public var description: String?
    /// nil: the component's debugConfig.
    public var inputs: [String: GraftValue]?
    public var size: ContainerSize
    public var mediaType: MediaType
    public var play: [PlayStep]

    public init(
        name: String, description: String? = nil, inputs: [String: GraftValue]? = nil, size: ContainerSize = .unbounded,
        mediaType: MediaType = .html, play: [PlayStep] = []
    ) {
        self.name = name
        self.description = description
        self.inputs = inputs
        self.size = size
        self.mediaType = mediaType
        self.play = play
    }

    /// Names a snapshot file can carry as they are: letters, digits, `_`, `-` and `.`, not first; at most 64.
    public static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.first != "."
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0)) }
    }

    init(parsing value: GraftValue, at place: String) throws(StoryProblem) {
        guard let object = value.objectValue else { throw StoryProblem(place, "is not an object") }
        let known: Set<String> = ["name", "description", "inputs", "size", "mediaType", "play"]
        if let stray = object.keys.filter({ !known.contains($0) }).sorted().first {
            throw StoryProblem(place, "has \"\(stray)\", which a story does not take (it takes \(known.sorted().map { "\"\($0)\"" }.joined(separator: ", ")))")
        }
        guard let name = object["name"]?.stringValue, Self.isPlainName(name) else {
            throw StoryProblem("\(place).name", "needs a name of letters, digits, _, - and . (not first), at most 64")
        }
        self.name = name
        switch object["description"] {
        case nil, .null?: description = nil
        case .string(let text)?: description = text
        default: throw StoryProblem("\(place).description", "is not a string")
        }
        switch object["inputs"] {
        case nil: inputs = nil
        case .object(let given)?: inputs = given
        default: throw StoryProblem("\(place).inputs", "is not an object of inputs")
        }
        size = .unbounded
        if let given = object["size"] {
            let width = given["width"]?.numberValue ?? 0, height = given["height"]?.numberValue ?? 0
            guard given.objectValue != nil, Set(given.objectValue!.keys).isSubset(of: ["width", "height"]),
                  width >= 0, height >= 0, width <= 100_000, height <= 100_000, width.isFinite, height.isFinite
            else { throw StoryProblem("\(place).size", "needs {\"width\": W, \"height\": H}, each from 0 (unbounded) to 100000") }
            size = ContainerSize(width: width, height: height)
        }
        switch object["mediaType"] {
        case nil: mediaType = .html
        case .string("text/html")?: mediaType = .html
        case .string("text/plain")?: mediaType = .plain
        default: throw StoryProblem("\(place).mediaType", "is \"text/html\" (the default) or \"text/plain\"")
        }
        guard case .list(let list) = object["play"] ?? .list([]) else {
            throw StoryProblem("\(place).play", "is not a list of steps")
        }
        var play: [PlayStep] = []
        for (index, step) in list.enumerated() { play.append(try PlayStep(parsing: step, at: "\(place).play[\(index)]")) }
        self.play = play
    }

    /// The story as a file spells it.
    public var jsonValue: GraftValue {
        var object: [String: GraftValue] = ["name": .string(name)]
        if let description { object["description"] = .string(description) }
        if let inputs { object["inputs"] = .object(inputs) }
        if size != .unbounded { object["size"] = ["width": .number(size.width), "height": .number(size.height)] }
        if mediaType != .html { object["mediaType"] = .string(mediaType.rawValue) }
        if !play.isEmpty { object["play"] = .list(play.map(\.jsonValue)) }
        return .object(object)
    }
}
