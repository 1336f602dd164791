import CGraftSystem
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// The child's end of the socket to its host (descriptor 3): frames in, with
/// the descriptor that came with each, and frames out. Shared by the scanner
/// and the runner; the host's end is `ChildProcess`.
struct ChildChannel {
    static let descriptor: Int32 = 3
    /// What was read and not taken yet (peeked at by `nextIsRenderOfJustCreated`).
    private(set) var frames = WireFrames()
    private var descriptors: [Int32] = []
    /// Where each read lands before its bytes join `buffer`: allocated once,
    /// for the life of the child.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    /// A frame from the host, with the descriptor that came with it (or -1).
    typealias Request = (header: Wire.Header, payload: [UInt8], descriptor: Int32)

    /// The next frame, or nil when the host has gone or broke the protocol.
    mutating func next() -> Request? {
        while true {
            let frame: (header: Wire.Header, payload: [UInt8])?
            do throws(Wire.Violation) {
                frame = try frames.next()
            } catch {
                return nil
            }
            if let (header, payload) = frame {
                // Descriptors go to the frames that carry one, in order: one read may hold a render
                // and, after it, a load with its file's descriptor.
                let carries = header.kind == .load || header.kind == .scan || header.kind == .job || header.kind == .ring
                var descriptor = carries && !descriptors.isEmpty ? descriptors.removeFirst() : -1
                if carries, ring != nil {
                    // Sent on the socket, with one byte, just before its frame went into the ring.
                    var byte: UInt8 = 0
                    guard graft_receive_with_fd(Self.descriptor, &byte, 1, &descriptor) == 1 else { return nil }
                }
                if header.kind == .ring {
                    guard ring == nil, adoptRing((header, payload, descriptor)) else { return nil }
                    continue
                }
                return (header, payload, descriptor)
            }
            if let ring {
                guard readRing(ring) else { return nil }
                continue
            }
            var descriptor: Int32 = -1
            let count = graft_receive_with_fd(Self.descriptor, scratch.baseAddress, scratch.count, &descriptor)
            if descriptor >= 0 { descriptors.append(descriptor) }
            if count > 0 { frames.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count])) }
            guard count > 0 else { return nil }
        }
    }

    // MARK: The shared-memory ring

    /// The ring frames come through once the host sent one (`Wire.Kind.ring`).
    private var ring: UnsafeMutablePointer<graft_ring>?
    private var spin: UInt32 = 0

    /// Waits for bytes in the ring and takes them; false when the host let this child go.
    private mutating func readRing(_ ring: UnsafeMutablePointer<graft_ring>) -> Bool {
        while true {
            let count = graft_ring_take(&ring.pointee.receive, scratch.baseAddress, scratch.count)
            if count > 0 {
                frames.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
                return true
            }
            guard count == 0, graft_ring_wait(&ring.pointee.receive, graft_ring_closed_flag(ring), -1, spin) == 1 else { return false }
        }
    }

    /// The host's `ring` frame: maps its memory file, says so on the socket
    /// (the last frame there), and from then on reads and sends through it.
    private mutating func adoptRing(_ request: Request) -> Bool {
        let mapped = UnsafeMutablePointer<graft_ring>.allocate(capacity: 1)
        mapped.initialize(to: graft_ring())
        guard request.descriptor >= 0, graft_ring_attach(request.descriptor, mapped) == 0 else {
            if request.descriptor >= 0 { close(request.descriptor) }
            mapped.deallocate()
            return Self.send(.failed, id: request.header.id, [])
        }
        // The mapping stays; the descriptor goes, so that it counts against none of the plugin's quotas.
        close(request.descriptor)
        mapped.pointee.fd = -1
        var reader = WireReader(request.payload)
        spin = (try? reader.u32()) ?? 0
        mapped.pointee.receive.spin_budget = spin
        guard Self.send(.ringReady, id: request.header.id, []) else { return false }
        Self.sending.withLock { Self.sharedRing = mapped }
        ring = mapped
        return true
    }

    /// Where `send` writes once the ring is up. Guarded by `sending`.
    nonisolated(unsafe) private static var sharedRing: UnsafeMutablePointer<graft_ring>?

    /// Sends one frame; false when the host has gone. Frames from several
    /// threads (a plugin may emit from its own) never interleave.
    static func send(_ kind: Wire.Kind, id: UInt32, _ payload: [UInt8]) -> Bool {
        send(Wire.frame(kind, id: id, payload: payload))
    }

    /// Sends whole frames, already framed, and with them `passing` (a descriptor of this process's), if any.
    static func send(_ frame: [UInt8], passing: Int32 = -1) -> Bool {
        sending.withLock {
            if let ring = sharedRing {
                return frame.withUnsafeBytes { graft_ring_put(&ring.pointee.send, $0.baseAddress, $0.count, graft_ring_closed_flag(ring)) } == 0
            }
            // write(2) unless a descriptor goes along: the child ignores SIGPIPE, and its filter lets write
            // pass without looking at it (send is sendto, whose arguments it checks).
            return frame.withUnsafeBytes {
                passing >= 0 ? graft_send_with_fd(descriptor, $0.baseAddress, $0.count, passing) : graft_write_all(descriptor, $0.baseAddress, $0.count)
            } == 0
        }
    }

    private static let sending = Lock()

    // MARK: The sandbox and the hello

    /// What `enterSandbox` applied, and the listener the hello hands over.
    nonisolated(unsafe) private static var sandbox: (status: ChildSandbox.Status, listener: Int32)?
    // Safe: set once by the child's main thread before any other thread exists, read by `sayHello` on it.

    /// Enters the sandbox (see `ChildSandbox`); the hello says how it went.
    static func enterSandbox(_ policy: SandboxPolicy) {
        sandbox = ChildSandbox.enter(policy)
    }

    /// The child's first frame: what it is, what it applied of its sandbox,
    /// and with it the seccomp listener, which this process then closes.
    /// False when the host has gone.
    static func sayHello() -> Bool {
        let listener = sandbox?.listener ?? -1
        defer { if listener >= 0 { close(listener) } }
        return send(Wire.frame(.hello, id: 0, payload: Wire.helloPayload(sandbox: sandbox?.status)), passing: listener)
    }
}
