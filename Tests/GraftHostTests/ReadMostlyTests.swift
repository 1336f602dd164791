import Foundation
import Synchronization
import Testing

@testable import GraftHost

/// The lock-free read path behind `validate`: what it promises hot swap.
/// Serialized: the grace period is process-wide, so one test's reader parked
/// inside a section would hold up another test's "released at once".
@Suite("Read sections and grace periods", .serialized)
struct ReadMostlyTests {
    final class Box: Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    /// Polls `condition` for up to two seconds.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    /// Starts a thread that enters a section on `published` (after opening
    /// and closing an inner one, if `nested`) and stays inside until the
    /// returned semaphore is signalled; then runs `after` on the object it
    /// borrowed. Returns once the thread is inside.
    static func parkReader(
        in published: ReadMostly<Box>, nested: Bool = false, after: @escaping @Sendable (Box) -> Void = { _ in }
    ) -> DispatchSemaphore {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            published.withCurrent { box in
                if nested { published.withCurrent { _ in } }
                entered.signal()
                release.wait()
                after(box)
            }
        }
        entered.wait()
        return release
    }

    @Test("a replaced object is released at once when no reader holds it")
    func releasedAtOnce() {
        let published = ReadMostly(Box(1))
        weak let first = published.value
        #expect(first != nil)
        published.update { _ in (Box(2), ()) }
        #expect(first == nil, "released by the writer, after its grace period")
        #expect(published.withCurrent { $0.value } == 2)
        #expect(!published.hasRetired)
    }

    @Test("a reader inside a section keeps the old object alive; it is released after the reader leaves")
    func readerHoldsOldObject() throws {
        let published = ReadMostly(Box(1))
        weak let first = published.value
        let seen = Atomic<Int>(0)
        let release = Self.parkReader(in: published) { box in
            // Still readable when released: the writer did not free it under us.
            seen.store(box.value, ordering: .relaxed)
        }

        published.update { _ in (Box(2), ()) }  // waits out its timeout, then retires the old box
        #expect(first != nil, "not released while a reader is inside")
        #expect(published.hasRetired)
        #expect(published.withCurrent { $0.value } == 2, "new readers see the replacement")

        release.signal()
        #expect(Self.eventually { first == nil }, "released in the background once the reader left")
        #expect(seen.load(ordering: .relaxed) == 1)
        #expect(!published.hasRetired)
    }

    @Test("a writer inside a section does not wait for itself")
    func writerInsideSection() {
        let published = ReadMostly(Box(1))
        weak let first = published.value
        let start = ContinuousClock.now
        published.withCurrent { box in
            published.update { _ in (Box(2), ()) }
            #expect(box.value == 1, "the borrowed object is still alive")
        }
        #expect(ContinuousClock.now - start < .seconds(1), "returned without waiting for its own section")
        #expect(Self.eventually { first == nil })
    }

    @Test("sections nest, and leaving the inner one keeps the outer one open")
    func nesting() throws {
        let published = ReadMostly(Box(1))
        weak let first = published.value
        let release = Self.parkReader(in: published, nested: true)
        published.update { _ in (Box(2), ()) }
        #expect(first != nil, "the outer section still protects the old object")
        release.signal()
        #expect(Self.eventually { first == nil })
    }

    @Test("threads reading through 2000 replacements always see a live object")
    func stress() {
        let published = ReadMostly(Box(0))
        let stop = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let wrong = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        // Threads, not the dispatch pool: busy loops must not take its few workers.
        for _ in 0..<2 {
            Thread.detachNewThread {
                while !stop.load(ordering: .relaxed) {
                    let value = published.withCurrent { $0.value }
                    if value < 0 { wrong.add(1, ordering: .relaxed) }
                    reads.add(1, ordering: .relaxed)
                }
                done.signal()
            }
        }
        for round in 1...2000 { published.update { _ in (Box(round), ()) } }
        stop.store(true, ordering: .relaxed)
        done.wait()
        done.wait()
        #expect(published.withCurrent { $0.value } == 2000)
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) > 0)
    }

    @Test("the same tests pass when readers fence themselves (no membarrier)")
    func withoutMembarrier() throws {
        if ProcessInfo.processInfo.environment["GRAFT_MEMBARRIER"] == "0" {
            #expect(!ReadSection.domain.writersFence)
            return
        }
        guard ReadSection.domain.writersFence else { return }  // this machine already runs the fallback
        // This suite again, in a child test process whose read sections start
        // without membarrier.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["--testing-library", "swift-testing", "--filter", "ReadMostlyTests"]
        process.environment = ProcessInfo.processInfo.environment.merging(["GRAFT_MEMBARRIER": "0"]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains("Read sections and grace periods\" passed"), "\(output)")
    }
}
