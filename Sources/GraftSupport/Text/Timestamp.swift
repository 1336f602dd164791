import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// ISO 8601 times in UTC with milliseconds (`2026-12-24T09:30:00.123Z`), the
/// form the action log and the debug protocol use. Formatting goes through
/// `gmtime_r` rather than a shared formatter object: it is thread-safe and
/// cheap enough to run for every record a client follows.
package enum Timestamp {
    package static func string(from date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        var milliseconds = Int(((interval - Double(seconds)) * 1000).rounded())
        if milliseconds == 1000 {
            seconds += 1
            milliseconds = 0
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return "\(digits(Int(parts.tm_year) + 1900, 4))-\(digits(Int(parts.tm_mon) + 1, 2))-\(digits(Int(parts.tm_mday), 2))"
            + "T\(digits(Int(parts.tm_hour), 2)):\(digits(Int(parts.tm_min), 2)):\(digits(Int(parts.tm_sec), 2)).\(digits(milliseconds, 3))Z"
    }

    /// Reads what `string(from:)` writes (fractional seconds optional).
    package static func date(from text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// `HH:MM:SS.mmm` in UTC, for one-line text output.
    package static func clock(from date: Date) -> String {
        let full = string(from: date)
        guard let t = full.firstIndex(of: "T") else { return full }
        return String(full[full.index(after: t)...].dropLast())
    }
}
