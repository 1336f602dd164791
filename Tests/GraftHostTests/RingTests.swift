import CGraftSystem
import Foundation
import GraftTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import GraftHost

/// The shared-memory ring a runner child's frames travel through: a byte
/// stream each way that neither side can break for the other. The first
/// tests play both sides in this process (one mapping as the host's, one as
/// the child's); the last ones run a plugin that scribbles on its ring.
@Suite("The shared-memory ring")
struct RingTests {
    /// A host's ring and a child's mapping of the same memory file.
    final class Pair: @unchecked Sendable {
        var host = graft_ring(), child = graft_ring()
        var hostAlerts: UInt32 = 0, hostStop: UInt32 = 0

        init(capacity: UInt64 = 4096) throws {
            try #require(graft_ring_create(capacity, &host) == 0)
            let copy = dup(host.fd)
            try #require(graft_ring_attach(copy, &child) == 0)
        }

        deinit {
            graft_ring_unmap(&child)
            graft_ring_unmap(&host)
        }

        /// The child's control block for bytes to the host, as raw words.
        var toHostControl: UnsafeMutableRawPointer { UnsafeMutableRawPointer(host.receive.control!) }
    }

    static func later(_ milliseconds: Int64) -> Int64 { ChildProcess.monotonicNanoseconds() + milliseconds * 1_000_000 }

    @Test("frames many times the ring's size stream through it in order, while the reader takes them")
    func streamsThroughWrapAround() throws {
        let pair = try Pair()
        let sent = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let writer = Thread {
            _ = sent.withUnsafeBytes { graft_ring_put(&pair.child.send, $0.baseAddress, $0.count, graft_ring_closed_flag(&pair.child)) }
        }
        writer.start()
        var received: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 3000)
        while received.count < sent.count {
            let count = scratch.withUnsafeMutableBytes { graft_ring_take(&pair.host.receive, $0.baseAddress, $0.count) }
            try #require(count >= 0)
            if count > 0 {
                received += scratch[0..<count]
                continue
            }
            try #require(graft_ring_wait(&pair.host.receive, &pair.hostAlerts, Self.later(5000), 20_000) == 1, "nothing came within 5 s")
        }
        #expect(received == sent)
    }

    /// What lets a call whose child died before reading it go to the next child (`PluginRunner.call`).
    @Test("the writer tells a request its reader took from one still waiting, frame by frame")
    func takenThrough() throws {
        let pair = try Pair()
        let first: [UInt8] = Array(repeating: 1, count: 100), second: [UInt8] = Array(repeating: 2, count: 50)
        _ = first.withUnsafeBytes { graft_ring_put(&pair.host.send, $0.baseAddress, $0.count, &pair.hostStop) }
        let afterFirst = graft_ring_written(&pair.host.send)
        _ = second.withUnsafeBytes { graft_ring_put(&pair.host.send, $0.baseAddress, $0.count, &pair.hostStop) }
        let afterSecond = graft_ring_written(&pair.host.send)
        #expect(afterSecond - afterFirst == 50)
        #expect(graft_ring_taken(&pair.host.send, afterFirst) == 0, "nothing taken yet")
        var scratch = [UInt8](repeating: 0, count: 100)
        #expect(scratch.withUnsafeMutableBytes { graft_ring_take(&pair.child.receive, $0.baseAddress, $0.count) } == 100)
        #expect(graft_ring_taken(&pair.host.send, afterFirst) != 0, "the first frame was taken")
        #expect(graft_ring_taken(&pair.host.send, afterSecond) == 0, "the second still waits")
        #expect(scratch.withUnsafeMutableBytes { graft_ring_take(&pair.child.receive, $0.baseAddress, $0.count) } == 50)
        #expect(graft_ring_taken(&pair.host.send, afterSecond) != 0)
    }

    @Test("a reader waits until its deadline, and wakes at once for bytes, an alert or a closed ring")
    func waitsAndWakes() throws {
        let pair = try Pair()
        let started = ContinuousClock.now
        #expect(graft_ring_wait(&pair.host.receive, &pair.hostAlerts, Self.later(50), 0) == 0)
        #expect(ContinuousClock.now - started >= .milliseconds(50))

        // An alert set from another thread (the host's watch) wakes a sleeping reader.
        let alerter = Thread { usleep(20_000); graft_ring_alert(&pair.host, &pair.hostAlerts, ChildRing.attention) }
        alerter.start()
        #expect(graft_ring_wait(&pair.host.receive, &pair.hostAlerts, Self.later(5000), 0) == 2)
        #expect(graft_ring_clear_alerts(&pair.hostAlerts, ChildRing.attention) == ChildRing.attention)

        // The host closing the ring ends the child's wait, which has no deadline.
        let closer = Thread { usleep(20_000); graft_ring_close(&pair.host) }
        closer.start()
        #expect(graft_ring_wait(&pair.child.receive, graft_ring_closed_flag(&pair.child), -1, 0) == 2)
        // And a writer waiting for room stops.
        var full = [UInt8](repeating: 7, count: 8192)
        #expect(full.withUnsafeMutableBytes { graft_ring_put(&pair.child.send, $0.baseAddress, $0.count, graft_ring_closed_flag(&pair.child)) } == -1)
    }

    @Test("positions the other side publishes that cannot be are refused, whichever way they lie")
    func lyingPositions() throws {
        let pair = try Pair()
        var byte: UInt8 = 0
        // A tail beyond the ring's capacity: the reader refuses it and takes nothing.
        pair.toHostControl.storeBytes(of: UInt64(4096 * 3), as: UInt64.self)
        #expect(graft_ring_waiting(&pair.host.receive) == -1)
        #expect(graft_ring_take(&pair.host.receive, &byte, 1) == -1)
        #expect(graft_ring_wait(&pair.host.receive, &pair.hostAlerts, Self.later(1000), 0) == -1)
        // A tail behind what was taken is as impossible.
        pair.toHostControl.storeBytes(of: UInt64.max, as: UInt64.self)
        #expect(graft_ring_waiting(&pair.host.receive) == -1)

        // The file cannot shrink or grow under either mapping (a shrunk one would make the next read a SIGBUS).
        #expect(ftruncate(pair.child.fd, 0) == -1 && errno == EPERM)
        #expect(ftruncate(pair.host.fd, 1 << 30) == -1 && errno == EPERM)

        // A head that says more was taken than was written: the writer stops.
        let fresh = try Pair()
        let toChild = UnsafeMutableRawPointer(fresh.host.send.control!)
        toChild.storeBytes(of: UInt64(1 << 40), toByteOffset: 64, as: UInt64.self)
        #expect(graft_ring_put(&fresh.host.send, &byte, 1, &fresh.hostStop) == -1)
    }

    @Test("a bell rung with nothing behind it ends the reader's wait as a violation, not a spin to the deadline")
    func emptyBell() throws {
        let pair = try Pair()
        // The host's own view rung from outside: its data bell bumped and woken, no byte written.
        let stop = Atomic<Bool>(false)
        let ringer = Thread {
            var ring = graft_ring()
            ring.receive = pair.host.receive
            ring.send = pair.host.send
            while !stop.load(ordering: .relaxed) { graft_ring_wake(&ring) }
        }
        ringer.start()
        defer { stop.store(true, ordering: .relaxed) }
        let started = ContinuousClock.now
        #expect(graft_ring_wait(&pair.host.receive, &pair.hostAlerts, Self.later(10_000), 0) == -2)
        #expect(ContinuousClock.now - started < .seconds(9))
    }
}

extension RingTests {
    @Test(
        "a child that breaks its ring (a lying position, an empty bell, bytes that are no frame, a byte on the socket) is killed for it; the next call works",
        arguments: ["ring_tail", "ring_bell", "ring_garbage", "ring_socket"])
    func scribblingChild(act: String) throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let host = ChildResourcesTests.host(folder)
        let started = ContinuousClock.now
        let error = #expect(throws: GraftError.self) { _ = try ChildResourcesTests.probe(host, act) }
        #expect(error?.code == .pluginCrashed, "\(String(describing: error?.message))")
        #expect(error?.message.contains("broke the protocol") == true, "\(String(describing: error))")
        // Killed at once, not when the plugin's two-second sleep ends.
        #expect(ContinuousClock.now - started < .milliseconds(1900))
        #expect(try ChildResourcesTests.probe(host, "res_alloc", "1").text == "res_alloc: ok 1 MiB")
    }
}

extension RingTests {
    @Test("a child cannot shrink its ring's memory file under its host (it is sealed): the host reads on, the calls go on")
    func truncatedRing() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let host = ChildResourcesTests.host(folder)
        let text = try ChildResourcesTests.probe(host, "ring_truncate").text
        #expect(text.hasPrefix("ring_truncate: refused"), "\(text)")  // by the seal, or before it by the sandbox
        for _ in 0..<3 { #expect(try ChildResourcesTests.probe(host, "res_alloc", "1").text == "res_alloc: ok 1 MiB") }
    }

    @Test("with the ring off, a child maps none and every call goes on the socket, as before")
    func socketOnly() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil),
            logger: quietLogger, runnersUseRing: false)
        host.loadPlugins()
        #expect(try ChildResourcesTests.probe(host, "ring_tail").text == "ring_tail: refused ENOENT")
        for _ in 0..<3 { #expect(try ChildResourcesTests.probe(host, "res_alloc", "1").text == "res_alloc: ok 1 MiB") }
        // A crash is recovered from on the socket too.
        #expect(throws: GraftError.self) { _ = try ChildResourcesTests.probe(host, "ring_socket") }
        #expect(try ChildResourcesTests.probe(host, "res_alloc", "1").text == "res_alloc: ok 1 MiB")
    }
}
