#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `descriptor`, again after an interrupted
/// write; false when a write fails or writes nothing (`errno` says why).
package func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
    var written = 0
    while written < bytes.count {
        let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        written += count
    }
    return true
}

/// Fills `buffer` from `descriptor` at `offset`, again after an interrupted
/// read; returns how many bytes came (fewer at the end of the file or on
/// an error).
package func readAll(into buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32, at offset: Int) -> Int {
    var done = 0
    while done < buffer.count {
        let count = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        done += count
    }
    return done
}
