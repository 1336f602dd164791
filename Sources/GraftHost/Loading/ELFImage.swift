/// What the loader needs to know about a shared library before `dlopen`:
/// that it is a complete ELF shared object for this machine, and whether it
/// contains Swift (such an image must never be closed; see DESIGN.md).
struct ELFImage: Sendable {
    /// The image registers with the Swift runtime (a `swift5_*` section or a
    /// `libswiftCore.so` dependency), so unloading it would leave dangling
    /// metadata in the runtime.
    var containsSwift: Bool
    /// The libraries it depends on (DT_NEEDED).
    var needed: [String]

    /// Inspects the bytes of a file. Throws `not_a_shared_library` naming
    /// `path` and what is wrong.
    init(bytes: [UInt8], path: String) throws(GraftError) {
        func refuse(_ reason: String) -> GraftError {
            GraftError(.notASharedLibrary, "\(path) is not a loadable shared library: \(reason).", path: path)
        }
        guard bytes.count >= 64 else {
            throw refuse(bytes.isEmpty ? "the file is empty" : "the file is too short for an ELF header (\(bytes.count) bytes)")
        }
        guard bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46 else {
            throw refuse("it does not start with the ELF magic number")
        }
        guard bytes[4] == 2 else { throw refuse("it is not a 64-bit ELF file") }
        guard bytes[5] == 1 else { throw refuse("it is not little-endian") }

        let reader = ByteReader(bytes: bytes)
        let type = reader.u16(16)
        guard type == 3 else { throw refuse("its ELF type is \(type), not a shared object (ET_DYN)") }
        let machine = reader.u16(18)
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

        let programOffset = reader.offset(32)
        let sectionOffset = reader.offset(40)
        let programEntrySize = Int(reader.u16(54))
        let programCount = Int(reader.u16(56))
        let sectionEntrySize = Int(reader.u16(58))
        let sectionCount = Int(reader.u16(60))
        let sectionNamesIndex = Int(reader.u16(62))

        // Every loadable segment must be in the file: a linker still writing,
        // or a copy cut short, fails here instead of inside dlopen.
        guard programEntrySize >= 56, programOffset > 0,
            programOffset + programCount * programEntrySize <= bytes.count
        else { throw refuse("its program headers lie past the end of the file (truncated?)") }
        for index in 0..<programCount {
            let base = programOffset + index * programEntrySize
            let segmentType = reader.u32(base)
            let fileOffset = reader.offset(base + 8)
            let fileSize = reader.offset(base + 32)
            if segmentType == 1 /* PT_LOAD */, fileOffset + fileSize > bytes.count {
                throw refuse("a loadable segment ends at byte \(fileOffset + fileSize) but the file has \(bytes.count) (truncated?)")
            }
        }

        guard sectionEntrySize >= 64, sectionCount > 0,
            sectionOffset + sectionCount * sectionEntrySize <= bytes.count
        else { throw refuse("its section headers lie past the end of the file (truncated?)") }

        struct Section { var name: Int; var type: UInt32; var offset: Int; var size: Int; var link: Int }
        let sections = (0..<sectionCount).map { index -> Section in
            let base = sectionOffset + index * sectionEntrySize
            return Section(
                name: Int(reader.u32(base)), type: reader.u32(base + 4),
                offset: reader.offset(base + 24), size: reader.offset(base + 32), link: Int(reader.u32(base + 40)))
        }

        var containsSwift = false
        if sectionNamesIndex < sections.count {
            let names = sections[sectionNamesIndex]
            for section in sections where names.offset + section.name < bytes.count {
                if reader.cString(names.offset + section.name, limit: names.offset + names.size).hasPrefix("swift5_") {
                    containsSwift = true
                }
            }
        }

        var needed: [String] = []
        for section in sections where section.type == 6 /* SHT_DYNAMIC */ && section.link < sections.count {
            let strings = sections[section.link]
            guard section.offset + section.size <= bytes.count else {
                throw refuse("its dynamic section lies past the end of the file (truncated?)")
            }
            var entry = section.offset
            while entry + 16 <= section.offset + section.size {
                let tag = reader.u64(entry)
                if tag == 0 { break }
                if tag == 1 /* DT_NEEDED */ {
                    let offset = strings.offset + reader.offset(entry + 8)
                    if offset < bytes.count { needed.append(reader.cString(offset, limit: strings.offset + strings.size)) }
                }
                entry += 16
            }
        }
        if needed.contains(where: { $0.hasPrefix("libswiftCore.so") }) { containsSwift = true }

        self.containsSwift = containsSwift
        self.needed = needed
    }
}

/// Little-endian reads with bounds checks: out of range reads as zero and the
/// callers compare sizes before trusting an offset.
private struct ByteReader {
    let bytes: [UInt8]

    func u16(_ at: Int) -> UInt16 { UInt16(truncatingIfNeeded: read(at, 2)) }
    func u32(_ at: Int) -> UInt32 { UInt32(truncatingIfNeeded: read(at, 4)) }
    func u64(_ at: Int) -> UInt64 { read(at, 8) }

    /// A 64-bit file offset or size, clamped so that sums of a few of them
    /// cannot overflow: anything past 2^40 is past the end of any plugin.
    func offset(_ at: Int) -> Int { Int(min(read(at, 8), 1 << 40)) }

    private func read(_ at: Int, _ count: Int) -> UInt64 {
        guard at >= 0, at + count <= bytes.count else { return 0 }
        var value: UInt64 = 0
        for index in (0..<count).reversed() { value = value << 8 | UInt64(bytes[at + index]) }
        return value
    }

    func cString(_ at: Int, limit: Int) -> String {
        let end = min(limit, bytes.count)
        var stop = at
        while stop < end, bytes[stop] != 0 { stop += 1 }
        guard at < stop else { return "" }
        return String(decoding: bytes[at..<stop], as: UTF8.self)
    }
}
