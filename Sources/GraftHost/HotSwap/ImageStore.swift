import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Private copies of plugin files. The dynamic loader caches images by path,
/// so a rebuilt `.so` at the same path would come back as the old image; and
/// a file rewritten in place under a mapped image corrupts it. Each build is
/// therefore copied to a unique path in a folder of the host's own and
/// mapped from there. The folder is removed with the store; an image still
/// mapped keeps its pages after its file is unlinked.
final class ImageStore: Sendable {
    let folder: String
    private let counter = Atomic<Int>(0)

    init() {
        folder = NSTemporaryDirectory() + "graft-images-\(getpid())-\(UUID().uuidString.prefix(8))"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Writes `bytes` (the contents of `path`) to a new unique file and
    /// returns its path. Throws `permission_denied` when it cannot write.
    func copy(_ bytes: [UInt8], of path: String) throws(GraftError) -> String {
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        let name = (path as NSString).lastPathComponent
        let target = "\(folder)/\(number)-\(name)"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: target))
        } catch {
            throw GraftError(
                .permissionDenied, "could not copy \(path) to \(target) for loading: \(error.localizedDescription)",
                path: path)
        }
        return target
    }

    /// Removes a copy's name once it is mapped or refused.
    func discard(_ copy: String) {
        unlink(copy)
    }
}

import Synchronization
