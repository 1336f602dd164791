/// A first-in, first-out buffer of at most `capacity` elements: appending to
/// a full buffer drops the oldest. Storage grows on demand up to the
/// capacity, so a large bound costs nothing until it is used.
struct RingBuffer<Element> {
    let capacity: Int
    private var storage: [Element] = []
    /// Where the oldest element is, once the storage has wrapped.
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a ring buffer holds at least one element")
        self.capacity = capacity
    }

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    mutating func append(_ element: consuming Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    /// The element at `index`, 0 being the oldest.
    subscript(index: Int) -> Element {
        storage[(head + index) % storage.count]
    }

    /// The newest `count` elements (all when there are fewer), oldest first.
    func suffix(_ count: Int) -> [Element] {
        let taken = max(0, min(count, storage.count))
        return (storage.count - taken..<storage.count).map { self[$0] }
    }

    /// Every element, oldest first.
    var elements: [Element] { suffix(storage.count) }

    mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
