import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// ISO 8601 times in UTC with milliseconds (`2026-12-24T09:30:00.123Z`), the
/// form the action log and the debug protocol use. Formatting goes through
/// `gmtime_r` rather than a shared formatter object: it is thread-safe and
/// cheap enough to run for every record a client follows.
enum Timestamp {
    static func string(from date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        var milliseconds = Int(((interval - Double(seconds)) * 1000).rounded())
        if milliseconds == 1000 {
            seconds += 1
            milliseconds = 0
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds)
    }

    /// Reads what `string(from:)` writes (fractional seconds optional).
    static func date(from text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// `HH:MM:SS.mmm` in UTC, for one-line text output.
    static func clock(from date: Date) -> String {
        let full = string(from: date)
        guard let t = full.firstIndex(of: "T") else { return full }
        return String(full[full.index(after: t)...].dropLast())
    }
}
