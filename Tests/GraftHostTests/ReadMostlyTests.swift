import Foundation
import GraftSupport
import GraftTestSupport
import Synchronization
import Testing

@testable import GraftHost

/// The lock-free read path behind `validate`: what it promises hot swap.
/// Serialized: retired objects wait in one process-wide list, so one test's
/// reader parked inside a read would hold up another test's "released at once".
@Suite("Lock-free reads and releasing what was replaced", .serialized)
struct ReadMostlyTests {
    final class Box: Sendable {
        let value: Int
        /// False once released: a reader that finds it false used a freed object.
        let alive = Atomic<Bool>(true)
        let onRelease: (@Sendable () -> Void)?
        init(_ value: Int, onRelease: (@Sendable () -> Void)? = nil) {
            self.value = value
            self.onRelease = onRelease
        }
        deinit {
            alive.store(false, ordering: .sequentiallyConsistent)
            onRelease?()
        }
    }

    /// Starts a thread that reads `published` (after opening and closing an
    /// inner read, if `nested`) and stays inside until the returned
    /// semaphore is signalled; then runs `after` on the object it borrowed.
    /// Returns once the thread is inside.
    static func parkReader(
        in published: ReadMostly<Box>, nested: Bool = false, after: @escaping @Sendable (Box) -> Void = { _ in }
    ) -> DispatchSemaphore {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            published.read { box in
                if nested { published.read { _ in } }
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
        // At once, unless another suite's reader (this process runs them in
        // parallel) was inside as it was replaced: then within milliseconds.
        #expect(eventually(timeout: .seconds(2)) { first == nil }, "released once no reader can hold it")
        #expect(published.read { $0.value } == 2)
        #expect(!ReadMostly<Box>.hasRetired)
    }

    @Test("a reader inside keeps the old object alive; the writer does not wait, and the object is released once the reader leaves")
    func readerHoldsOldObject() throws {
        let published = ReadMostly(Box(1))
        weak let first = published.value
        let seen = Atomic<Int>(0)
        let release = Self.parkReader(in: published) { box in
            // Still readable: the writer did not free it under us.
            seen.store(box.value, ordering: .relaxed)
        }

        let start = ContinuousClock.now
        published.update { _ in (Box(2), ()) }
        #expect(ContinuousClock.now - start < .seconds(1), "the writer returned without waiting for the reader (it would wait for ever: the reader leaves only after)")
        #expect(first != nil, "not released while a reader is inside")
        #expect(ReadMostly<Box>.hasRetired)
        #expect(published.read { $0.value } == 2, "new readers see the replacement")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(first != nil, "the reclaimer does not release it while the reader is inside")

        release.signal()
        #expect(eventually(timeout: .seconds(2)) { first == nil }, "released by the reclaimer once the reader left")
        #expect(seen.load(ordering: .relaxed) == 1)
        #expect(!ReadMostly<Box>.hasRetired)
    }

    @Test("a writer inside a read does not wait for itself; the old object is released once it leaves")
    func writerInsideRead() {
        let published = ReadMostly(Box(1))
        weak let first = published.value
        let start = ContinuousClock.now
        published.read { box in
            published.update { _ in (Box(2), ()) }
            #expect(box.value == 1, "the borrowed object is still alive")
            #expect(first != nil)
        }
        #expect(ContinuousClock.now - start < .seconds(1), "returned without waiting for its own read")
        #expect(eventually(timeout: .seconds(2)) { first == nil }, "released once the outermost read left")
    }

    @Test("reads nest, and leaving the inner one keeps the outer one open")
    func nesting() throws {
        let published = ReadMostly(Box(1))
        weak let first = published.value
        let release = Self.parkReader(in: published, nested: true)
        published.update { _ in (Box(2), ()) }
        #expect(first != nil, "the outer read still protects the old object")
        release.signal()
        #expect(eventually(timeout: .seconds(2)) { first == nil })
    }

    @Test("threads reading through thousands of replacements always see a live object, and every replaced one is released")
    func stress() {
        let released = Atomic<Int>(0)
        let count: @Sendable () -> Void = { released.add(1, ordering: .relaxed) }
        let published = ReadMostly(Box(0, onRelease: count))
        let stop = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let wrong = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        // Threads, not the dispatch pool: busy loops must not take its few workers.
        for _ in 0..<2 {
            Thread.detachNewThread {
                while !stop.load(ordering: .relaxed) {
                    let live = published.read { $0.alive.load(ordering: .relaxed) && $0.value >= 0 }
                    if !live { wrong.add(1, ordering: .relaxed) }
                    reads.add(1, ordering: .relaxed)
                }
                done.signal()
            }
        }
        // Swap only while both readers read.
        #expect(eventually(timeout: .seconds(2)) { reads.load(ordering: .relaxed) > 1000 })
        let readsBefore = reads.load(ordering: .relaxed)
        // At least 2000 replacements, and on until the readers have read a
        // thousand times among them (a busy machine may park them a while).
        var replacements = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while replacements < 2000 || (reads.load(ordering: .relaxed) - readsBefore < 1000 && ContinuousClock.now < deadline) {
            replacements += 1
            published.update { _ in (Box(replacements, onRelease: count), ()) }
        }
        let readsDuring = reads.load(ordering: .relaxed) - readsBefore
        stop.store(true, ordering: .relaxed)
        done.wait()
        done.wait()
        #expect(published.read { $0.value } == replacements)
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(readsDuring > 0, "the readers read while the writer replaced")
        #expect(
            eventually(timeout: .seconds(2)) { released.load(ordering: .relaxed) == replacements },
            "\(released.load(ordering: .relaxed)) of \(replacements) released")
        #expect(!ReadMostly<Box>.hasRetired)
    }

    @Test("the same tests pass when readers fence themselves (no membarrier)")
    func withoutMembarrier() throws {
        if ProcessInfo.processInfo.environment["GRAFT_MEMBARRIER"] == "0" {
            #expect(!ReadDomain.shared.writersFence)
            return
        }
        guard ReadDomain.shared.writersFence else { return }  // this machine already runs the fallback
        // This suite again, in a child test process whose reads start without
        // membarrier.
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
        #expect(output.contains("Lock-free reads and releasing what was replaced\" passed"), "\(output)")
    }
}
