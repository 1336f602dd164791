import GraftFlows
import Synchronization

/// Collects what a runner's observer sees, from whatever thread calls it.
final class EntryLog: Sendable {
    private let entries = Mutex<[TranscriptEntry]>([])

    var all: [TranscriptEntry] { entries.withLock { $0 } }

    var observer: @Sendable (TranscriptEntry) -> Void {
        { entry in self.entries.withLock { $0.append(entry) } }
    }
}
