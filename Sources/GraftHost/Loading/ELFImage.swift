/// What the loader needs to know about a shared library before `dlopen`:
/// that it is a complete ELF shared object for this machine, that it exports
/// `graft_entry` as a function, and whether it contains Swift (such an image
/// must never be closed: see the LoadingAndTrust article). Only the headers, the dynamic
/// section and the dynamic symbol table are read, with `pread`.
struct ELFImage: Sendable {
    /// The image registers with the Swift runtime (a `swift5_*` section or a
    /// `libswiftCore.so` dependency), so unloading it would leave dangling
    /// metadata in the runtime.
    var containsSwift: Bool
    /// The libraries it depends on (DT_NEEDED).
    var needed: [String]
    /// How `graft_entry` appears in the dynamic symbol table.
    var entry: PluginInspection.EntrySymbol
    /// Every defined global or weak dynamic symbol; filled only when asked
    /// for (`exportedSymbols(of:)`): a Swift plugin has thousands.
    var exports: [String] = []

    private static let entryName = Array("graft_entry".utf8)
    private static let swiftSectionPrefix = Array("swift5_".utf8)

    /// Larger tables than this are not a plugin's (a Swift plugin's symbol
    /// table is a few hundred KiB).
    private static let maximumTable = 64 << 20
    /// Bytes read at once from the start of the file.
    static let headSize = 64 * 1024

    /// The names the image exports (defined, global or weak, in its dynamic
    /// symbol table), for the conformance checker.
    static func exportedSymbols(of file: PluginFile) throws(GraftError) -> [String] {
        try ELFImage(file: file, listingExports: true).exports
    }

    /// Inspects the file. Throws `not_a_shared_library` naming the file and what is wrong.
    init(file: PluginFile, listingExports: Bool = false) throws(GraftError) {
        let path = file.path
        func refuse(_ reason: String) -> GraftError {
            GraftError(.notASharedLibrary, "\(path) is not a loadable shared library: \(reason).", path: path)
        }
        let size = file.size
        // One read for the start of the file, where the headers and, in a
        // small library, the dynamic tables are; the rest is read as needed.
        let head = file.read(at: 0, count: min(size, Self.headSize))
        func bytes(at offset: Int, count: Int) -> Region {
            // A view of the head when it holds them: no copy.
            if offset >= 0, count >= 0, offset + count <= head.count { return Region(head, from: offset, count: count) }
            let read = file.read(at: offset, count: count)
            return Region(read, from: 0, count: read.count)
        }
        let header = bytes(at: 0, count: 64)
        guard header.count >= 64 else {
            throw refuse(size == 0 ? "the file is empty" : "the file is too short for an ELF header (\(size) bytes)")
        }
        guard header.u32(0) == 0x464C_457F else { throw refuse("it does not start with the ELF magic number") }
        guard header.u8(4) == 2 else { throw refuse("it is not a 64-bit ELF file") }
        guard header.u8(5) == 1 else { throw refuse("it is not little-endian") }

        let type = header.u16(16)
        guard type == 3 else { throw refuse("its ELF type is \(type), not a shared object (ET_DYN)") }
        let machine = header.u16(18)
        #if arch(x86_64)
        let expectedMachine: UInt16 = 62
        #elseif arch(arm64)
        let expectedMachine: UInt16 = 183
        #else
        let expectedMachine = machine
        #endif
        guard machine == expectedMachine else {
            throw refuse("it was built for ELF machine \(machine), not this one (\(expectedMachine))")
        }

        let programOffset = header.offset(32)
        let sectionOffset = header.offset(40)
        let programEntrySize = Int(header.u16(54))
        let programCount = Int(header.u16(56))
        let sectionEntrySize = Int(header.u16(58))
        let sectionCount = Int(header.u16(60))
        let sectionNamesIndex = Int(header.u16(62))

        // Every loadable segment must be in the file: a linker still writing,
        // or a copy cut short, fails here instead of inside dlopen.
        guard programEntrySize >= 56, programOffset > 0, programOffset + programCount * programEntrySize <= size else {
            throw refuse("its program headers lie past the end of the file (truncated?)")
        }
        let programs = bytes(at: programOffset, count: programCount * programEntrySize)
        for index in 0..<programCount {
            let base = index * programEntrySize
            let fileOffset = programs.offset(base + 8)
            let fileSize = programs.offset(base + 32)
            if programs.u32(base) == 1 /* PT_LOAD */, fileOffset + fileSize > size {
                throw refuse("a loadable segment ends at byte \(fileOffset + fileSize) but the file has \(size) (truncated?)")
            }
        }

        guard sectionEntrySize >= 64, sectionCount > 0, sectionOffset + sectionCount * sectionEntrySize <= size else {
            throw refuse("its section headers lie past the end of the file (truncated?)")
        }
        struct Section { var name: Int; var type: UInt32; var offset: Int; var size: Int; var link: Int; var entrySize: Int }
        let table = bytes(at: sectionOffset, count: sectionCount * sectionEntrySize)
        let sections = (0..<sectionCount).map { index -> Section in
            let base = index * sectionEntrySize
            return Section(
                name: Int(table.u32(base)), type: table.u32(base + 4), offset: table.offset(base + 24),
                size: table.offset(base + 32), link: Int(table.u32(base + 40)), entrySize: table.offset(base + 56))
        }
        func contents(_ section: Section, _ what: String) throws(GraftError) -> Region {
            guard section.offset + section.size <= size else { throw refuse("its \(what) lies past the end of the file (truncated?)") }
            guard section.size <= Self.maximumTable else { throw refuse("its \(what) is \(section.size) bytes, more than any plugin needs") }
            return bytes(at: section.offset, count: section.size)
        }

        var containsSwift = false
        if sectionNamesIndex < sections.count {
            let names = try contents(sections[sectionNamesIndex], "section name table")
            containsSwift = sections.contains { names.hasPrefix(Self.swiftSectionPrefix, at: $0.name) }
        }

        var needed: [String] = []
        for section in sections where section.type == 6 /* SHT_DYNAMIC */ && section.link < sections.count {
            let dynamic = try contents(section, "dynamic section")
            let strings = try contents(sections[section.link], "dynamic string table")
            var entry = 0
            while entry + 16 <= dynamic.count {
                let tag = dynamic.u64(entry)
                if tag == 0 { break }
                if tag == 1 /* DT_NEEDED */ { needed.append(strings.cString(dynamic.offset(entry + 8))) }
                entry += 16
            }
        }
        if needed.contains(where: { $0.hasPrefix("libswiftCore.so") }) { containsSwift = true }

        var entrySymbol = PluginInspection.EntrySymbol.missing
        var exports: [String] = []
        for section in sections where section.type == 11 /* SHT_DYNSYM */ && section.link < sections.count {
            let symbols = try contents(section, "dynamic symbol table")
            let strings = try contents(sections[section.link], "dynamic symbol names")
            let stride = max(section.entrySize, 24)
            var base = stride  // symbol 0 is the null symbol
            while base + 24 <= symbols.count {
                defer { base += stride }
                let info = symbols.u8(base + 4)
                let binding = info >> 4
                // Defined (not SHN_UNDEF), global or weak.
                guard symbols.u16(base + 6) != 0, binding == 1 || binding == 2 else { continue }
                if listingExports { exports.append(strings.cString(Int(symbols.u32(base)))) }
                if strings.hasCString(at: Int(symbols.u32(base)), Self.entryName) {
                    let symbolType = info & 0xF
                    // STT_FUNC, or STT_GNU_IFUNC (resolved to a function by the loader).
                    entrySymbol = symbolType == 2 || symbolType == 10 ? .function : .notAFunction(type: symbolType)
                    if !listingExports { break }
                }
            }
        }

        self.containsSwift = containsSwift
        self.needed = needed
        self.entry = entrySymbol
        self.exports = exports
    }
}

/// Little-endian reads from a part of the file (a view of bytes already
/// read, never a copy), with bounds checks: out of range reads as zero, and
/// the callers compare sizes before trusting an offset.
private struct Region {
    private let storage: [UInt8]
    private let base: Int
    let count: Int

    init(_ storage: [UInt8], from base: Int, count: Int) {
        self.storage = storage
        self.base = base
        self.count = count
    }

    func u8(_ at: Int) -> UInt8 { UInt8(truncatingIfNeeded: read(at, 1)) }
    func u16(_ at: Int) -> UInt16 { UInt16(truncatingIfNeeded: read(at, 2)) }
    func u32(_ at: Int) -> UInt32 { UInt32(truncatingIfNeeded: read(at, 4)) }
    func u64(_ at: Int) -> UInt64 { read(at, 8) }

    /// A 64-bit file offset or size, clamped so that sums of a few of them
    /// cannot overflow: anything past 2^40 is past the end of any plugin.
    func offset(_ at: Int) -> Int { Int(min(read(at, 8), 1 << 40)) }

    private func read(_ at: Int, _ width: Int) -> UInt64 {
        guard at >= 0, at + width <= count else { return 0 }
        // In place, little-endian: ELF parsing reads a few hundred fields per file.
        return storage.withUnsafeBytes { raw in
            let offset = base + at
            switch width {
            case 1: return UInt64(raw[offset])
            case 2: return UInt64(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
            case 4: return UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            default: return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
        }
    }

    /// Whether the NUL-terminated string at `at` is `name` (no String is built:
    /// a Swift plugin's symbol table has thousands of names).
    func hasCString(at: Int, _ name: [UInt8]) -> Bool {
        hasPrefix(name, at: at) && storage[base + at + name.count] == 0
    }

    /// Whether the string at `at` starts with `prefix`.
    func hasPrefix(_ prefix: [UInt8], at: Int) -> Bool {
        guard at >= 0, at + prefix.count < count else { return false }
        for index in 0..<prefix.count where storage[base + at + index] != prefix[index] { return false }
        return true
    }

    /// The NUL-terminated string at `at`, or "" when out of range.
    func cString(_ at: Int) -> String {
        guard at >= 0, at < count else { return "" }
        var stop = at
        while stop < count, storage[base + stop] != 0 { stop += 1 }
        return String(decoding: storage[(base + at)..<(base + stop)], as: UTF8.self)
    }
}
