import Foundation
import GraftTestSupport
import Testing

/// Every Graft process starts with its binary: `graft list` answers from the
/// cache in a few milliseconds, and a scanner child is started per new
/// folder. Full Foundation (CoreFoundation, ICU and their relocations) cost
/// each of them about half a millisecond before `main`; FoundationEssentials
/// has all they use. A module that imports `Foundation` brings it back: this
/// says which binary did.
@Suite struct StartUpTests {
    @Test("graft and graft-scanner link FoundationEssentials, not Foundation")
    func noFullFoundation() throws {
        for name in ["graft", "graft-scanner"] {
            let binary = try Data(contentsOf: BuildProducts.product(name))
            // A dynamic build names the libraries it needs, each ending in a NUL.
            #expect(binary.range(of: Data("libFoundationEssentials.so\0".utf8)) != nil, "\(name) does not name FoundationEssentials: is this a static build?")
            #expect(binary.range(of: Data("libFoundation.so\0".utf8)) == nil, "\(name) links full Foundation: some module it uses imports Foundation instead of FoundationEssentials")
        }
    }
}
