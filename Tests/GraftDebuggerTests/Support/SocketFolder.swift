import Foundation
import GraftTestSupport

/// A private folder (mode 0700, this user's) for one test's sockets,
/// removed when the test's scope ends. Short, so socket paths stay under
/// the kernel's 107 bytes.
struct SocketFolder: ~Copyable {
    let url: URL

    init() throws {
        url = URL(fileURLWithPath: "/tmp/graft-dbg-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
