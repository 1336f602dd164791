import FoundationEssentials
import GraftHost

/// Each story's render kept as a file, `FOLDER/PLUGIN_ID/KEY@VERSION/STORY.html` (`.txt` for plain text), compared
/// byte for byte on the next run.
public struct Snapshots: Sendable {
    public enum Mode: Sendable, Hashable {
        /// Compare; a story without a snapshot gets one written.
        case compare
        /// Write every render as its snapshot.
        case update
        /// Compare; a story without a snapshot fails (CI, where nothing written would be kept).
        case strict
    }

    public var folder: String
    public var mode: Mode

    public init(folder: String, mode: Mode) {
        self.folder = folder
        self.mode = mode
    }

    public func path(of storyCase: StoryCase, mediaType: MediaType) -> String {
        let name = PlayStory.isPlainName(storyCase.story.name)
            ? storyCase.story.name
            : String(storyCase.story.name.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) ? Character($0) : "_" })
        let folder = FilePaths.joined(FilePaths.joined(self.folder, storyCase.pluginID), "\(storyCase.component.key)@\(storyCase.component.version)")
        return FilePaths.joined(folder, name + (mediaType == .html ? ".html" : ".txt"))
    }

    /// Compares (or writes) the render of `storyCase`. A story whose steps failed gets no snapshot written: its
    /// render is not what anyone meant to keep.
    public func check(_ rendering: Rendering, of storyCase: StoryCase, stepsPassed: Bool = true) -> StoryOutcome.Snapshot {
        let path = path(of: storyCase, mediaType: rendering.mediaType)
        let kept = try? BoundedFile.text(at: path, what: "the snapshot", code: .snapshotMismatch)
        if !stepsPassed && (kept == nil || mode == .update) { return .none }
        switch (mode, kept) {
        case (.update, let old):
            if old == rendering.text { return .matched(path) }
            return write(rendering.text, to: path) ?? (old == nil ? .written(path) : .updated(path))
        case (.compare, nil):
            return write(rendering.text, to: path) ?? .written(path)
        case (.strict, nil):
            return .differs(path, "there is no snapshot yet")
        case (_, let old?):
            return old == rendering.text ? .matched(path) : .differs(path, Self.firstDifference(old, rendering.text))
        }
    }

    private func write(_ text: String, to path: String) -> StoryOutcome.Snapshot? {
        do {
            try FileManager.default.createDirectory(atPath: FilePaths.folder(of: path), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            return nil
        } catch {
            return .differs(path, "it could not be written: \(error)")
        }
    }

    /// Where two texts first differ, as a line and both sides of it.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for line in 0..<max(old.count, new.count) {
            let a = line < old.count ? String(old[line]) : nil, b = line < new.count ? String(new[line]) : nil
            if a != b {
                let shown = { (text: String?) in text.map { GraftValue.string($0.count > 120 ? String($0.prefix(120)) + "…" : $0).jsonText } ?? "(no line)" }
                return "line \(line + 1) was \(shown(a)), is \(shown(b))"
            }
        }
        return "they differ"
    }
}
