/// A reference that does not keep its object alive.
package struct Weak<Object: AnyObject & Sendable>: Sendable {
    package weak var value: Object?

    package init(_ value: Object) {
        self.value = value
    }
}
