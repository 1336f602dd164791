import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// What one hot swap (or a reload that found nothing to do) came to. Sent to
/// every swap observer and into the debugger's log.
public struct SwapEvent: Sendable {
    public enum Outcome: Sendable {
        /// The new build is serving.
        case swapped
        /// A new file: loaded for the first time.
        case loaded
        /// The file's content hash did not change: nothing to do.
        case unchanged
        /// The file is gone: its components are unregistered (now, or once
        /// their last instance closes).
        case removed
        /// Something failed; the running build (if any) stays live.
        case failed(GraftError)
    }

    /// One live instance moved to the new build.
    public struct Recreated: Sendable, Hashable {
        public package(set) var instanceID: String
        public package(set) var component: ComponentReference
        public package(set) var stateCarried: Bool
    }

    public package(set) var time: Date
    public package(set) var path: String
    public package(set) var pluginID: String?
    /// The plugin version (its entry's `version`) before and after.
    public package(set) var oldVersion: String?
    public package(set) var newVersion: String?
    public package(set) var outcome: Outcome
    /// From the file being read to the new build serving, excluding any debounce.
    public package(set) var duration: Duration
    public package(set) var recreated: [Recreated]
    /// Instances that could not be recreated and stay on the old build.
    public package(set) var failed: [(instanceID: String, error: GraftError)]
    /// Instances whose key + version the new build lacks: they stay on the old
    /// build until they close, and new lookups get `custom_component_not_found`.
    public package(set) var orphaned: [String]
    /// An unchanged reload after a rejected build: the running build's own
    /// file is back, so the rejection no longer stands (`graft watch` and the
    /// workbench say so, where another unchanged reload is not worth a word).
    public package(set) var restoresRunningBuild = false

    /// One line for logs and `graft watch`.
    public var summary: String {
        let milliseconds = decimal(Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000, places: 1)
        let who = pluginID ?? FilePaths.lastComponent(of: path)
        switch outcome {
        case .swapped:
            var line = "swapped \(who) \(oldVersion ?? "?") → \(newVersion ?? "?") in \(milliseconds) ms, \(recreated.count) instance\(recreated.count == 1 ? "" : "s") recreated"
            let carried = recreated.filter(\.stateCarried).count
            if carried > 0 { line += " (\(carried) with state)" }
            if !failed.isEmpty { line += ", \(failed.count) failed" }
            if !orphaned.isEmpty { line += ", \(orphaned.count) left on the old build" }
            return line
        case .loaded: return "loaded \(who) \(newVersion ?? "") in \(milliseconds) ms"
        case .unchanged where restoresRunningBuild:
            return "\(who): the running build's file is back; the rejected build is gone"
        case .unchanged: return "\(who): unchanged"
        case .removed: return "removed \(who)"
        case .failed(let error): return "swap of \(who) failed, the running build stays: \(error.code.rawValue): \(error.message)"
        }
    }
}
