import Foundation
import GraftTestSupport
import Testing

/// `graft bench hotswap` checked for what it does, not for how fast: swaps
/// through the real watcher with a live instance, reload() alone, lookups
/// under swaps, and memory against the mapped image.
@Suite("graft bench hotswap")
struct HotSwapBenchTests {
    @Test("graft bench hotswap --json reports the watcher's swaps with the debounce, reload(), failed lookups and memory")
    func figures() throws {
        let scratch = try Scratch()
        let part = try benchPart("hotswap", ["--swaps", "5", "--watched-swaps", "3", "--memory-swaps", "5"], scratch: scratch)
        for key in ["watched_swap_p50_ms", "watched_swap_p99_ms", "reload_p50_ms", "reload_p99_ms", "lookups_during_swaps"] {
            #expect((part[key] as? Double).map { $0 > 0 } == true, "\(key) in \(part)")
        }
        #expect(part["watcher_debounce_ms"] as? Double == 50)
        #expect((part["watched_swap_p50_ms"] as? Double).map { $0 >= 50 } == true, "the debounce is part of a swap through the watcher")
        #expect(part["failed_lookups"] as? Double == 0)
        #expect(part["failed_swaps"] as? Double == 0)
        #expect(part["c_rss_growth_kib"] is Double)
        // The Swift plugin `swift build` put beside graft-bench: its mapped image, not its file size.
        let mapped = try #require(part["swift_image_mapped_kib"] as? Double, "\(part)")
        #expect(mapped > 0)
        #expect(mapped != part["swift_image_file_kib"] as? Double)
        let left = try leftBehind(scratch)
        #expect(left.isEmpty, "left in TMPDIR: \(left)")
    }
}
