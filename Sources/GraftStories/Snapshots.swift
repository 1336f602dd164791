import FoundationEssentials
import GraftHost
import GraftSupport

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
        let folder = FilePaths.joined(
            FilePaths.joined(self.folder, Self.fileName(storyCase.pluginID)), Self.fileName("\(storyCase.component.key)@\(storyCase.component.version)"))
        return FilePaths.joined(folder, Self.fileName(storyCase.story.name) + (mediaType == .html ? ".html" : ".txt"))
    }

    /// A plugin's id, a key or a story's name as one file name that stays in its folder: letters, digits, `_`, `-`,
    /// `.` and `@` kept, anything else `_`, and a name that would start with a dot (`..`, a hidden file) starts
    /// with `_`. A plugin's id is the plugin's to choose (`../../x` included), so it is never a path as given.
    static func fileName(_ text: String) -> String {
        let kept = String(text.unicodeScalars.map {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.@".unicodeScalars.contains($0)) ? Character($0) : "_"
        })
        return kept.isEmpty || kept.hasPrefix(".") ? "_" + kept : kept
    }

    /// Compares (or writes) the render of `storyCase`. A story whose steps failed gets no snapshot written: its
    /// render is not what anyone meant to keep.
    public func check(_ rendering: Rendering, of storyCase: StoryCase, stepsPassed: Bool = true) -> StoryOutcome.Snapshot {
        let path = path(of: storyCase, mediaType: rendering.mediaType)
        var kept: String?
        if FileManager.default.fileExists(atPath: path) {
            // One that is there but does not read is not missing: it is never written over.
            do throws(GraftError) { kept = try BoundedFile.text(at: path, what: "the snapshot", code: .snapshotMismatch) } catch {
                return .differs(path, "it could not be read: \(error.message)")
            }
        }
        if !stepsPassed && (kept == nil || mode == .update) { return .none }
        switch (mode, kept) {
        case (.update, let old):
            if let old, Self.same(old, rendering.text) { return .matched(path) }
            return write(rendering.text, to: path) ?? (old == nil ? .written(path) : .updated(path))
        case (.compare, nil):
            return write(rendering.text, to: path) ?? .written(path)
        case (.strict, nil):
            return .differs(path, "there is no snapshot yet")
        case (_, let old?):
            return Self.same(old, rendering.text) ? .matched(path) : .differs(path, Self.firstDifference(old, rendering.text))
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

    /// Byte for byte: two spellings of one Unicode text are two renders.
    static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// Where two texts first differ, as a line (counted by its line feeds, whatever precedes them) and both sides.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let lines = { (text: String) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) } }
        let old = lines(expected), new = lines(actual)
        for line in 0..<max(old.count, new.count) {
            let a = line < old.count ? old[line] : nil, b = line < new.count ? new[line] : nil
            if a.map({ Array($0.utf8) }) != b.map({ Array($0.utf8) }) {
                let shown = { (text: String?) in text.map { GraftValue.string($0.count > 120 ? String($0.prefix(120)) + "…" : $0).jsonText } ?? "(no line)" }
                return "line \(line + 1) was \(shown(a)), is \(shown(b))"
            }
        }
        return "they differ"
    }
}
