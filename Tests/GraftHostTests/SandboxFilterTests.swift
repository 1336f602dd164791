import CGraftSandbox
import Foundation
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import GraftHost

/// The filter a sandboxed child installs refuses by default: every system
/// call that is not on the allow-list goes to the host (which refuses what it
/// does not judge), whatever its name, its number or its ABI; the allowed
/// ones pass without the host; and the docs' table of every call is the list
/// the code builds the filter from. Checked by running the exported BPF
/// program (`SeccompProgram`), as the kernel would.
@Suite("The sandbox's system call filter")
struct SandboxFilterTests {
    static let native = graft_native_arch()
    static let x86_64: UInt32 = 0xC000_003E
    static let i386: UInt32 = 0x4000_0003

    /// The three filters a host builds: nothing granted, ports granted, any network.
    static let grants: [(String, SandboxPolicy)] = [
        ("no network", SandboxPolicy()), ("ports", SandboxPolicy(connectPorts: [443])), ("any network", SandboxPolicy(anyNetwork: true)),
    ]

    static func program(_ policy: SandboxPolicy) throws -> SeccompProgram {
        var policy = policy
        policy.filter = ""
        let hex = SandboxFilter.program(for: policy)
        try #require(!hex.isEmpty, "this system builds no filter")
        return try SeccompProgram(hex: hex)
    }

    static func listing(_ name: String) -> graft_sandbox_entry {
        var entry = graft_sandbox_entry()
        _ = graft_sandbox_listing(name, &entry)
        return entry
    }

    /// Every number below 1024 with the name this system gives it, if any.
    static var numbers: [(nr: Int32, name: String?)] {
        (0..<1024).map { nr in
            let cName = graft_syscall_name(Int32(nr))
            defer { free(cName) }
            return (Int32(nr), cName.map { String(cString: $0) })
        }
    }

    /// Arguments a call might be made with: none, all bits, and some of each.
    static let argumentPatterns: [[UInt64]] = [
        [], [UInt64](repeating: .max, count: 6), [UInt64](repeating: 0xFFFF_FFFF, count: 6), [1, 2, 3, 4, 5, 6],
        [0x10000, 0x7FFF_FFFF, 0x2000_0000, 0x4000_0000, 0x8000_0000, 0x1_0000_0000],
    ]

    @Test("every call not on the allow-list goes to the host, whatever its arguments; every allowed one passes", arguments: [0, 1, 2])
    func everyCallNotAllowedIsAsked(grant: Int) throws {
        let program = try Self.program(Self.grants[grant].1)
        var allowed = 0, asked = 0
        for (nr, name) in Self.numbers {
            let entry = name.map(Self.listing) ?? graft_sandbox_entry(verdict: GRAFT_CALL_UNLISTED, error: ENOSYS, group: nil, reason: nil)
            switch entry.verdict {
            case GRAFT_CALL_ALLOWED:
                #expect(try program.run(nr: nr, arch: Self.native) == .allow, "\(name ?? "?") (\(nr)) is on an allowed list")
                allowed += 1
            case GRAFT_CALL_CONDITIONAL:
                break  // below, case by case
            case GRAFT_CALL_REDIRECTED:
                for arguments in Self.argumentPatterns {
                    #expect(try program.run(nr: nr, arch: Self.native, arguments: arguments) == .errno(ENOSYS), "\(name ?? "?")")
                }
            default:
                for arguments in Self.argumentPatterns {
                    let action = try program.run(nr: nr, arch: Self.native, arguments: arguments)
                    #expect(action == .notify, "\(name ?? "system call \(nr)") with \(arguments): \(action), not asked of the host")
                }
                asked += 1
            }
        }
        #expect(allowed > 150 && asked > 150, "\(allowed) allowed, \(asked) asked")
    }

    @Test("a foreign ABI (x32, a 32-bit int 0x80) goes to the host, to be refused and reported, not to a crash")
    func foreignABIs() throws {
        guard Self.native == Self.x86_64 else { return }
        let program = try Self.program(SandboxPolicy())
        for nr: Int32 in [0, 1, 20, 39, 59, 231] {
            #expect(try program.run(nr: nr | 0x4000_0000, arch: Self.native) == .notify, "x32 \(nr)")
            #expect(try program.run(nr: nr, arch: Self.i386) == .notify, "i386 \(nr)")
        }
    }

    /// Calls allowed on conditions: `(call, arguments, what the filter does with each grant)`.
    static var conditions: [(String, [UInt64], [SeccompProgram.Action])] {
        let thread: UInt64 = 0x3D0F00  // what glibc's pthread_create passes
        let afUnix: UInt64 = 1, afInet: UInt64 = 2, afInet6: UInt64 = 10, stream: UInt64 = 1, datagram: UInt64 = 2
        let nonblocking: UInt64 = 0o4000 | 0o2000000
        let all: [SeccompProgram.Action] = [.allow, .allow, .allow], none: [SeccompProgram.Action] = [.notify, .notify, .notify]
        return [
            ("clone", [thread], all), ("clone", [17 /* SIGCHLD: a process */], none),
            ("clone", [thread | 0x1000_0000 /* CLONE_NEWUSER */], none), ("clone", [thread | 0x4000_0000 /* CLONE_NEWNET */], none),
            ("clone", [thread & ~0x400 /* CLONE_FILES: a thread with descriptors of its own */], none),
            ("fcntl", [3, 3 /* F_GETFL */], all), ("fcntl", [3, 1030 /* F_DUPFD_CLOEXEC */], all), ("fcntl", [3, 6 /* F_SETLK */], all),
            ("fcntl", [3, 1026 /* F_NOTIFY */], none), ("fcntl", [3, 1024 /* F_SETLEASE */], none), ("fcntl", [3, 8 /* F_SETOWN */], none),
            ("memfd_create", [0x1000, 1], none),
            ("socket", [afUnix, stream, 0], none), ("socket", [afUnix, datagram, 0], none),
            ("socket", [16 /* AF_NETLINK */, 3, 0], none), ("socket", [17 /* AF_PACKET */, 3, 0], none),
            ("socket", [afInet, 3 /* SOCK_RAW */, 1], none), ("socket", [40 /* AF_VSOCK */, stream, 0], none),
            ("socket", [afInet, stream, 0], [.notify, .allow, .allow]), ("socket", [afInet6, stream | nonblocking, 6], [.notify, .allow, .allow]),
            ("socket", [afInet, datagram, 0], [.notify, .notify, .allow]), ("socket", [afInet, stream, 262 /* MPTCP */], [.notify, .notify, .allow]),
            ("connect", [3, 0x1000, 16], [.notify, .notify, .allow]),
            ("sendto", [3, 0x1000, 3, 0, 0, 0], all), ("sendto", [3, 0x1000, 3, 0x4000 /* MSG_DONTWAIT */, 0, 0], all),
            ("sendto", [3, 0x1000, 3, 0, 0x2000, 16], [.notify, .notify, .allow]),
            ("sendto", [3, 0x1000, 3, 0x2000_0000 /* MSG_FASTOPEN */, 0, 0], [.notify, .notify, .allow]),
            ("sendmsg", [3, 0x1000, 0], all), ("sendmsg", [3, 0x1000, 0x2000_0000], [.notify, .notify, .allow]),
            ("sendmmsg", [3, 0x1000, 1, 0x2000_0000], [.notify, .notify, .allow]),
            ("ioctl", [0, 0x541B /* FIONREAD */], all), ("ioctl", [0, 0x5401 /* TCGETS */], all),
            ("ioctl", [0, 0x5412 /* TIOCSTI */], none), ("ioctl", [0, 0x8912 /* SIOCGIFCONF */], none),
            ("prctl", [15 /* PR_SET_NAME */], all), ("prctl", [0x5356_4D41 /* PR_SET_VMA */], all),
            ("prctl", [4 /* PR_SET_DUMPABLE */], none), ("prctl", [22 /* PR_SET_SECCOMP */], none), ("prctl", [35 /* PR_SET_MM */], none),
            ("prctl", [0x5961_6D61 /* PR_SET_PTRACER */], none), ("prctl", [59 /* PR_SET_SYSCALL_USER_DISPATCH */], none),
            ("personality", [0xFFFF_FFFF], all), ("personality", [0x0040000 /* ADDR_NO_RANDOMIZE */], none),
            ("kill", [1, 9], none), ("tgkill", [1, 1, 9], none), ("tkill", [1, 9], none),
            ("prlimit64", [0, 7], all), ("prlimit64", [1, 7], none),
            ("sched_getaffinity", [0, 128, 0x1000], all), ("sched_getaffinity", [1, 128, 0x1000], none),
            ("getpgid", [0], all), ("getpgid", [1], none), ("getpriority", [0, 0], all), ("getpriority", [0, 1], none),
            ("getpriority", [2 /* PRIO_USER */, 0], none), ("setpriority", [1 /* PRIO_PGRP */, 0, 19], none),
            ("ioprio_set", [3 /* IOPRIO_WHO_USER */, 0, 4], none), ("utimensat", [3, 0, 0, 0], none),
            ("fallocate", [3, 0, 0, 4096], none), ("fallocate", [3, 1 /* FALLOC_FL_KEEP_SIZE */, 0, 1 << 33], none),
            ("fallocate", [3, 3 /* FALLOC_FL_PUNCH_HOLE | KEEP_SIZE */, 0, 4096], none),
        ]
    }

    @Test("calls allowed on conditions pass only on them: threads, not processes; sockets and sends a grant allows; harmless ioctl and prctl")
    func conditionalCalls() throws {
        let programs = try Self.grants.map { try Self.program($0.1) }
        for (name, arguments, expected) in Self.conditions {
            let nr = graft_syscall_number(name)
            try #require(nr >= 0, "\(name) has a number")
            #expect(Self.listing(name).verdict == GRAFT_CALL_CONDITIONAL, "\(name) is listed as conditional")
            for (index, program) in programs.enumerated() {
                let action = try program.run(nr: nr, arch: Self.native, arguments: arguments)
                #expect(action == expected[index], "\(name)\(arguments) with \(Self.grants[index].0): \(action), expected \(expected[index])")
            }
        }
    }

    @Test("every listed call's verdict holds in the filter, and every call the list names exists on some architecture")
    func listNamesRealCalls() throws {
        for index in 0..<graft_sandbox_group_count() {
            for verdict in [GRAFT_CALL_ALLOWED, GRAFT_CALL_ASKED, GRAFT_CALL_REFUSED] {
                var calls = graft_sandbox_group_calls(index, verdict)
                while let call = calls?.pointee {
                    let name = String(cString: call)
                    // A name unknown here (an aarch64-only call, say) must still be a call libseccomp knows somewhere.
                    let known = graft_syscall_number(name) >= 0 || seccomp_resolve_anywhere(name)
                    #expect(known, "\(name) is no system call")
                    calls = calls! + 1
                }
            }
        }
    }

    /// Whether libseccomp knows `name` on x86_64 or aarch64.
    func seccomp_resolve_anywhere(_ name: String) -> Bool {
        let architectures: [String] = ["x86_64", "aarch64"]
        return architectures.contains { (arch: String) in graft_syscall_number_on(arch, name) >= 0 }
    }

    // MARK: The docs' table

    static let article = "Sources/GraftHost/Documentation.docc/SystemCalls.md"
    static let begin = "<!-- The tables below are generated by SandboxFilterTests from graft_sandbox_calls.c. -->"
    static let end = "<!-- End of the generated tables. -->"

    /// The generated part of the article: the groups, then every x86_64 call.
    static func generatedTables() -> String {
        var lines = [begin, "", "### Groups", "", "| group | verdict | why |", "|---|---|---|"]
        var rows: [String] = []
        for (nr, name) in numbers {
            guard let name else { continue }
            let entry = listing(name)
            let group = String(cString: entry.group), reason = String(cString: entry.reason)
            rows.append("| \(nr) | `\(name)` | \(verdictWords(entry)) | \(entry.verdict == GRAFT_CALL_CONDITIONAL || entry.verdict == GRAFT_CALL_REDIRECTED ? reason : group) |")
        }
        for index in 0..<graft_sandbox_group_count() {
            for verdict in [GRAFT_CALL_ALLOWED, GRAFT_CALL_ASKED, GRAFT_CALL_REFUSED] {
                guard let calls = graft_sandbox_group_calls(index, verdict), let first = calls.pointee else { continue }
                let entry = listing(String(cString: first))
                lines.append("| \(String(cString: entry.group)) | \(verdictWords(entry)) | \(String(cString: entry.reason)) |")
            }
        }
        lines.append("| unlisted | \(verdictWords(graft_sandbox_entry(verdict: GRAFT_CALL_UNLISTED, error: ENOSYS, group: nil, reason: nil))) | on no list, every call the kernel adds later included: answered as a kernel without it would answer |")
        lines += ["", "### Every call", "", "| number | call | verdict | group, or the condition |", "|---|---|---|---|"]
        lines += rows
        lines += ["", end]
        return lines.joined(separator: "\n")
    }

    static func verdictWords(_ entry: graft_sandbox_entry) -> String {
        switch entry.verdict {
        case GRAFT_CALL_ALLOWED: "allowed"
        case GRAFT_CALL_CONDITIONAL: "on conditions"
        case GRAFT_CALL_ASKED: String(cString: entry.group) == "done-by-host" ? "done by the host" : "asked"
        case GRAFT_CALL_REDIRECTED: "ENOSYS, unreported"
        case GRAFT_CALL_REFUSED: "refused (\(entry.error == EACCES ? "EACCES" : "EPERM"))"
        default: "refused (ENOSYS)"
        }
    }

    @Test("the docs' table of every x86_64 system call is the one the code's list gives (GRAFT_WRITE_DOCS=1 rewrites it)")
    func docsTable() throws {
        guard Self.native == Self.x86_64 else { return }
        let url = Fixtures.root.appendingPathComponent(Self.article)
        let text = try String(contentsOf: url, encoding: .utf8)
        let tables = Self.generatedTables()
        guard let start = text.range(of: Self.begin), let stop = text.range(of: Self.end) else {
            Issue.record("\(Self.article) lacks the generated tables' markers")
            return
        }
        let current = String(text[start.lowerBound..<stop.upperBound])
        if ProcessInfo.processInfo.environment["GRAFT_WRITE_DOCS"] == "1" && current != tables {
            try text.replacingCharacters(in: start.lowerBound..<stop.upperBound, with: tables).write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(current == tables, "run GRAFT_WRITE_DOCS=1 swift test --filter SandboxFilterTests to rewrite \(Self.article)")
    }
}
