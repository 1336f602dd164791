import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif
@testable import GraftHost

/// The dynamic loader hands back the image it already has for a name it has
/// seen, so every in-place load needs a name no load in the process used
/// before, whichever host asks, that still opens the checked descriptor.
@Suite("Image names")
struct ImageStoreTests {
    @Test("descriptor names from two stores never repeat, and each opens the checked file")
    func descriptorNames() throws {
        let file = try PluginFile(opening: "/bin/sh")
        let first = ImageStore(), second = ImageStore()
        var names: Set<String> = []
        for index in 0..<2000 {
            let name = (index.isMultiple(of: 2) ? first : second).descriptorName(for: file)
            #expect(names.insert(name).inserted, "\(name) was given twice")
        }
        var opened = stat(), checked = stat()
        for name in names.prefix(20) {
            let descriptor = open(name, O_RDONLY | O_CLOEXEC)
            #expect(descriptor >= 0, "\(name) does not open")
            guard descriptor >= 0 else { continue }
            fstat(descriptor, &opened)
            fstat(file.descriptor, &checked)
            close(descriptor)
            #expect(opened.st_ino == checked.st_ino && opened.st_dev == checked.st_dev)
        }
    }
}
