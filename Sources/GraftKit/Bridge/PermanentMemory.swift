#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for descriptors: allocated once per image and never freed.
///
/// graft.h wants descriptors valid until `deinit`, and an image containing
/// Swift is never unloaded (its runtime metadata cannot be unregistered), so
/// "until the image goes away" is both sufficient and the only safe choice.
/// Registration runs once per image, so this memory is bounded.
enum PermanentMemory {
    static func string(_ text: String) -> UnsafePointer<CChar> {
        UnsafePointer(strdup(text)!)
    }

    static func string(_ text: String?) -> UnsafePointer<CChar>? {
        text.map { string($0) }
    }

    /// `nil` for an empty array (graft.h allows NULL when the count is 0).
    static func array<T>(_ items: [T]) -> UnsafePointer<T>? {
        guard !items.isEmpty else { return nil }
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: items.count)
        pointer.initialize(from: items, count: items.count)
        return UnsafePointer(pointer)
    }

    static func single<T>(_ item: T) -> UnsafePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: item)
        return UnsafePointer(pointer)
    }
}
