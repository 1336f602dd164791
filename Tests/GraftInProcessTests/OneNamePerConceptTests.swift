import GraftHost
import GraftKit
import Testing

/// A file that imports both GraftKit and GraftHost (an app with in-process
/// plugins does) names every public type without qualifying it: the two
/// modules share no public name. This file does not compile if they do.
@Suite("one name per concept")
struct OneNamePerConceptTests {
    @Test("a plugin's PluginInfo and ValidationResult, the host's PluginDescription and ValidationOutcome, the shared types")
    func namesResolve() {
        let info = PluginInfo(id: "com.example.names", version: "1.0.0", name: "Names")
        let decided: ValidationResult = .invalid("not a date")
        let described: [PluginDescription] = []
        let answered: ValidationOutcome? = nil
        let size = ContainerSize(width: 320, height: 200)
        let media: MediaType = .html
        #expect(info.id == "com.example.names")
        #expect(decided != .valid)
        #expect(described.isEmpty && answered == nil)
        #expect(size.width == 320 && media == .html)
        #expect(Rendering.self == Rendering.self)
    }
}
