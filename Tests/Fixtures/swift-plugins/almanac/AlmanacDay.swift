import Foundation
import GraftKit
import OrderedCollections

/// A day, as Foundation and swift-collections describe it: one fact a line,
/// in the order they were made.
final class AlmanacDay: CustomComponent {
    let date: String

    init(props: ComponentProps, context: ComponentContext) {
        date = props.string("date", default: "2026-11-28")
    }

    func render(_ request: RenderRequest) -> Rendering {
        var facts = OrderedDictionary<String, String>()
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withFullDate]
        let day = parser.date(from: date) ?? Date(timeIntervalSince1970: 0)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "fr_FR")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateStyle = .full
        facts["day"] = formatter.string(from: day)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        facts["weekday"] = String(calendar.component(.weekday, from: day))
        let money = NumberFormatter()
        money.numberStyle = .currency
        money.locale = Locale(identifier: "de_DE")
        facts["price"] = money.string(from: 1234.5) ?? "?"
        let encoded = (try? JSONEncoder().encode(["uuid": UUID().uuidString.count])) ?? Data()
        facts["json"] = String(decoding: encoded, as: UTF8.self)
        // A file of its own, written atomically (a temporary file, then a rename) in its private folder.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("almanac.txt")
        do {
            try "kept".write(to: file, atomically: true, encoding: .utf8)
            facts["file"] = try String(contentsOf: file, encoding: .utf8)
        } catch {
            facts["file"] = "failed: \(error)"
        }
        facts["processors"] = ProcessInfo.processInfo.activeProcessorCount > 0 ? "some" : "none"
        return Rendering(text: facts.map { "\($0.key)=\($0.value)" }.joined(separator: "\n"), mediaType: .plain)
    }
}
