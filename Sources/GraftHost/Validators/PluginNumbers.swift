/// Plugin ids as small numbers, so that a value that names its plugin (a
/// `ValidationOutcome`, on the validators' hot path) copies an integer, not
/// a reference-counted string: an id longer than 15 bytes lives on the heap,
/// and retaining it cost the fast path a fifth of its time. Append-only, one
/// entry per distinct id the process ever loads.
enum PluginNumbers {
    private static let table = Locked<(numbers: [String: UInt32], ids: [String])>(([:], []))

    /// The number of `id`, the same for every plugin with that id.
    static func number(for id: String) -> UInt32 {
        table.withLock { table in
            if let number = table.numbers[id] { return number }
            let number = UInt32(table.ids.count)
            table.ids.append(id)
            table.numbers[id] = number
            return number
        }
    }

    /// The id numbered `number`.
    static func id(of number: UInt32) -> String {
        table.withLock { table in Int(number) < table.ids.count ? table.ids[Int(number)] : "" }
    }
}
