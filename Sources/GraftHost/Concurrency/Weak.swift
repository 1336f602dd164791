/// A reference that does not keep its object alive.
struct Weak<Object: AnyObject & Sendable>: Sendable {
    weak var value: Object?

    init(_ value: Object) {
        self.value = value
    }
}
