/// A seccomp filter as the kernel runs it: classic BPF over `struct
/// seccomp_data`, read from the program the host hands its children
/// (`SandboxFilter.program`). The tests run every system call number through
/// it, so that what the filter allows is what the list says, whatever
/// libseccomp made of it.
struct SeccompProgram {
    struct Instruction {
        var code: UInt16
        var jumpTrue: UInt8
        var jumpFalse: UInt8
        var k: UInt32
    }

    /// What the filter answered.
    enum Action: Equatable, CustomStringConvertible {
        case allow
        case notify
        case errno(Int32)
        case kill
        case other(UInt32)

        init(_ value: UInt32) {
            switch value & 0xFFFF_0000 {
            case 0x7FFF_0000: self = .allow
            case 0x7FC0_0000: self = .notify
            case 0x0005_0000: self = .errno(Int32(value & 0xFFFF))
            case 0x8000_0000, 0: self = .kill
            default: self = .other(value)
            }
        }

        var description: String {
            switch self {
            case .allow: "allow"
            case .notify: "notify"
            case .errno(let error): "errno \(error)"
            case .kill: "kill"
            case .other(let value): "action 0x\(String(value, radix: 16))"
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let instructions: [Instruction]

    /// Reads the program from its hexadecimal form (8 bytes an instruction, little-endian fields).
    init(hex: String) throws {
        let digits = Array(hex.utf8)
        guard digits.count % 16 == 0, !digits.isEmpty else { throw Failure(description: "not a whole number of instructions") }
        func byte(_ index: Int) throws -> UInt8 {
            guard let high = Self.nibble(digits[2 * index]), let low = Self.nibble(digits[2 * index + 1]) else {
                throw Failure(description: "not hexadecimal at \(2 * index)")
            }
            return high << 4 | low
        }
        var instructions: [Instruction] = []
        for start in stride(from: 0, to: digits.count / 2, by: 8) {
            let bytes = try (0..<8).map { try byte(start + $0) }
            instructions.append(
                Instruction(
                    code: UInt16(bytes[0]) | UInt16(bytes[1]) << 8, jumpTrue: bytes[2], jumpFalse: bytes[3],
                    k: UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24))
        }
        self.instructions = instructions
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 97...102: digit - 87
        default: nil
        }
    }

    /// Runs the program on one call: its number, architecture and arguments.
    func run(nr: Int32, arch: UInt32, arguments: [UInt64] = []) throws -> Action {
        // struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6].
        var data = [UInt8](repeating: 0, count: 64)
        func put32(_ value: UInt32, at offset: Int) {
            for index in 0..<4 { data[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        put32(UInt32(bitPattern: nr), at: 0)
        put32(arch, at: 4)
        for (index, argument) in arguments.prefix(6).enumerated() {
            put32(UInt32(truncatingIfNeeded: argument), at: 16 + 8 * index)
            put32(UInt32(truncatingIfNeeded: argument >> 32), at: 20 + 8 * index)
        }
        func load(_ offset: UInt32) throws -> UInt32 {
            guard offset % 4 == 0, offset + 4 <= 64 else { throw Failure(description: "load outside seccomp_data at \(offset)") }
            return (0..<4).reduce(0) { $0 | UInt32(data[Int(offset) + $1]) << (8 * $1) }
        }
        var a: UInt32 = 0, x: UInt32 = 0
        var memory = [UInt32](repeating: 0, count: 16)
        var pc = 0
        while pc < instructions.count {
            let instruction = instructions[pc]
            let code = instruction.code, k = instruction.k
            pc += 1
            switch code & 0x07 {
            case 0x00:  // LD
                switch code & 0xE0 {
                case 0x20: a = try load(k)
                case 0x00: a = k
                case 0x60: a = memory[Int(k & 15)]
                default: throw Failure(description: "unknown load 0x\(String(code, radix: 16))")
                }
            case 0x01:  // LDX
                switch code & 0xE0 {
                case 0x00: x = k
                case 0x60: x = memory[Int(k & 15)]
                default: throw Failure(description: "unknown load 0x\(String(code, radix: 16))")
                }
            case 0x02: memory[Int(k & 15)] = a
            case 0x03: memory[Int(k & 15)] = x
            case 0x04:  // ALU
                let operand = code & 0x08 != 0 ? x : k
                switch code & 0xF0 {
                case 0x00: a = a &+ operand
                case 0x10: a = a &- operand
                case 0x20: a = a &* operand
                case 0x40: a |= operand
                case 0x50: a &= operand
                case 0x60: a = operand < 32 ? a << operand : 0
                case 0x70: a = operand < 32 ? a >> operand : 0
                case 0x80: a = 0 &- a
                case 0xA0: a ^= operand
                default: throw Failure(description: "unknown ALU 0x\(String(code, radix: 16))")
                }
            case 0x05:  // JMP
                let operand = code & 0x08 != 0 ? x : k
                let taken: Bool
                switch code & 0xF0 {
                case 0x00:
                    pc += Int(k)
                    continue
                case 0x10: taken = a == operand
                case 0x20: taken = a > operand
                case 0x30: taken = a >= operand
                case 0x40: taken = a & operand != 0
                default: throw Failure(description: "unknown jump 0x\(String(code, radix: 16))")
                }
                pc += Int(taken ? instruction.jumpTrue : instruction.jumpFalse)
            case 0x06: return Action(code & 0x18 == 0x10 ? a : k)
            case 0x07: if code & 0xF8 == 0x80 { a = x } else { x = a }
            default: throw Failure(description: "unknown class 0x\(String(code, radix: 16))")
            }
        }
        throw Failure(description: "ran past the end of the program")
    }
}
