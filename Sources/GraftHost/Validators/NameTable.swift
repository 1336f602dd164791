import Synchronization

/// Serial numbers of name tables, so that no two ever share one.
private let nameTableSerials = Atomic<UInt64>(0)

/// An immutable map from the names flows call (`luhn`, `luhn@2`) to objects,
/// built once per published registry and read on every `validate`.
///
/// Why not `Dictionary<String, Value>`: Swift hashes a `String` with seeded
/// SipHash over its normalized code units, about 28 ns for `"luhn"` here,
/// as long as the luhn check itself. Names are short ASCII chosen by plugin
/// authors, and the table is rebuilt only on load or swap, so a multiply-mix
/// over the UTF-8 bytes, 8 at a time, with linear probing does the job. A
/// colliding or hostile name only costs a longer probe, never a wrong answer:
/// every hit is confirmed with `==`.
///
/// A class over one raw buffer of unmanaged references (the table holds +1
/// on each): a lookup reads entries in place and can lend the object out
/// without a retain and release, which cost more than the probe itself.
final class NameTable<Value: AnyObject & Sendable>: @unchecked Sendable {
    // Immutable after init. A hash of 0 marks an empty slot.
    private struct Entry {
        var hash: UInt64
        var name: String
        var value: Unmanaged<Value>?
    }

    private let entries: UnsafeMutablePointer<Entry>
    private let capacity: Int
    /// Unique in the process, never reused: the key of readers' lookup
    /// caches, which an address could not be once a table is freed.
    private let serial: UInt64

    init(_ pairs: some Sequence<(String, Value)>) {
        let pairs = Array(pairs)
        // At most half full, so a miss ends within a few probes.
        var capacity = 8
        while capacity < pairs.count * 2 { capacity *= 2 }
        self.capacity = capacity
        serial = nameTableSerials.add(1, ordering: .relaxed).newValue
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Entry(hash: 0, name: "", value: nil), count: capacity)
        for (name, value) in pairs {
            let hash = Self.hash(name)
            var index = Int(truncatingIfNeeded: hash) & (capacity - 1)
            while entries[index].hash != 0 && entries[index].name != name { index = (index + 1) & (capacity - 1) }
            entries[index].value?.release()
            entries[index] = Entry(hash: hash, name: name, value: .passRetained(value))
        }
    }

    deinit {
        for index in 0..<capacity { entries[index].value?.release() }
        entries.deinitialize(count: capacity)
        entries.deallocate()
    }

    private func find(_ name: String) -> Unmanaged<Value>? {
        let hash = Self.hash(name)
        var index = Int(truncatingIfNeeded: hash) & (capacity - 1)
        while entries[index].hash != 0 {
            if entries[index].hash == hash && entries[index].name == name { return entries[index].value }
            index = (index + 1) & (capacity - 1)
        }
        return nil
    }

    /// The object called `name`, retained.
    subscript(name: String) -> Value? { find(name)?.takeUnretainedValue() }

    /// Lends the object called `name` to `body` without retaining it (the
    /// table keeps it alive); nil when there is none. `reader` must be inside a
    /// read in which this table is published: its one-entry cache then
    /// answers a thread that calls the same name again without hashing.
    @inline(__always)
    func withValue<Result>(named name: String, reader: ReadRecord, _ body: (Value) -> Result) -> Result? {
        if reader.lookupSerial == serial, let cached = reader.lookupResult, reader.lookupName == name {
            return Unmanaged<Value>.fromOpaque(cached)._withUnsafeGuaranteedRef(body)
        }
        guard let found = find(name) else { return nil }
        reader.lookupSerial = serial
        reader.lookupName = name
        reader.lookupResult = found.toOpaque()
        return found._withUnsafeGuaranteedRef(body)
    }

    /// Mixes the UTF-8 bytes 8 at a time (a multiply and a fold each), then
    /// the length; never 0, which marks an empty slot.
    static func hash(_ name: String) -> UInt64 {
        // Native and small strings are contiguous; only a bridged string
        // falls back to a copy.
        name.utf8.withContiguousStorageIfAvailable(hash(bytes:)) ?? Array(name.utf8).withUnsafeBufferPointer(hash(bytes:))
    }

    private static func hash(bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = bytes.count
        var hash: UInt64 = 0x9e37_79b9_7f4a_7c15 ^ UInt64(count)
        guard let base = bytes.baseAddress else { return hash | 1 }
        var offset = 0
        while offset + 8 <= count {
            hash = mix(hash ^ UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)))
            offset += 8
        }
        let rest = count - offset
        if rest > 0 {
            // The last 1 to 7 bytes in whole loads (two overlapping ones from 4
            // bytes up): a memcpy into a word would stall store forwarding.
            let tail = UnsafeRawPointer(base + offset)
            let word: UInt64
            if rest >= 4 {
                let low = UInt64(UInt32(littleEndian: tail.loadUnaligned(as: UInt32.self)))
                let high = UInt64(UInt32(littleEndian: tail.loadUnaligned(fromByteOffset: rest - 4, as: UInt32.self)))
                word = low | high << 32
            } else {
                word = UInt64(tail.load(as: UInt8.self)) | UInt64(tail.load(fromByteOffset: rest / 2, as: UInt8.self)) << 8
                    | UInt64(tail.load(fromByteOffset: rest - 1, as: UInt8.self)) << 16
            }
            hash = mix(hash ^ word)
        }
        return hash | 1
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value.multipliedFullWidth(by: 0xbf58_476d_1ce4_e5b9)
        return product.high ^ product.low
    }
}
