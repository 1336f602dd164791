import GraftKit

/// The `date_picker` component. Version 1 takes a label; version 2 also a
/// `min_date` before which no date can be selected.
final class DatePicker: CustomComponent {
    private let context: ComponentContext
    private let version: Int
    private var label = ""
    private var minimum: CalendarDate?
    private var selected: CalendarDate?

    init(props: ComponentProps, context: ComponentContext, version: Int) {
        self.context = context
        self.version = version
        apply(props)
    }

    func render(_ request: RenderRequest) -> Rendering {
        if request.mediaType == .html {
            return Rendering(text: html, mediaType: .html)
        }
        let width = request.containerSize.width
        return Rendering(text: plain(width: width.isFinite && width >= 1 ? Int(min(width, 100_000)) : 0),
                         mediaType: .plain)
    }

    func update(props: ComponentProps) -> Bool {
        apply(props)
        if let selected, let minimum, selected < minimum { self.selected = nil }
        return true
    }

    /// "select" with `{"date": "YYYY-MM-DD"}` selects a date and emits
    /// `date_selected`. A malformed or too-early date is data it cannot use:
    /// refused (false, as graft.h asks), with why in the log.
    func interact(_ action: String, data: Value?) -> Bool {
        guard action == "select" else { return false }
        guard let text = data?["date"]?.stringValue, let date = CalendarDate(parsing: text) else {
            context.log(.warning, "select needs {\"date\": \"YYYY-MM-DD\"} naming a real calendar date; got \(data?.description ?? "no data").")
            return false
        }
        if let minimum, date < minimum {
            context.log(.warning, "\(date) is before the earliest selectable date, \(minimum); not selected.")
            return false
        }
        selected = date
        context.emit("date_selected", payload: ["date": .string(date.description),
                                                "timestamp": .number(Double(date.timestamp))])
        return true
    }

    /// The state is the selected date as YYYY-MM-DD; nothing when none is selected.
    func saveState() -> String? {
        selected?.description
    }

    func loadState(_ state: String) -> Bool {
        guard let date = CalendarDate(parsing: state) else { return false }
        if let minimum, date < minimum { return false }
        selected = date
        return true
    }

    private func apply(_ props: ComponentProps) {
        label = props.string("label", default: "Pick a date")
        guard version >= 2 else { return }
        minimum = nil
        if let text = props.string("min_date") {
            minimum = CalendarDate(parsing: text)
            if minimum == nil {
                context.log(.warning, "min_date \"\(text)\" is not a YYYY-MM-DD calendar date; no minimum applies.")
            }
        }
    }

    private var dateText: String { selected?.description ?? "____-__-__" }

    /// `Label: [ 2026-11-21 ▾ ]`, shortened to fit `width` columns when > 0:
    /// first the label (ending in "…"), then the label dropped, then a compact field.
    private func plain(width: Int) -> String {
        let field = "[ \(dateText) ▾ ]"
        let full = "\(label): \(field)"
        guard width > 0, full.count > width else { return full }
        let room = width - field.count - 2
        if room >= 2 {
            let kept = label.prefix(room - 1).reversed().drop { $0 == " " }.reversed()
            return String(kept) + "…: " + field
        }
        if field.count <= width { return field }
        return String("[\(dateText)]".prefix(width))
    }

    private var html: String {
        var input = "<input type=\"date\" name=\"date\""
        if let selected { input += " value=\"\(selected)\"" }
        if let minimum { input += " min=\"\(minimum)\"" }
        // A field with an empty label still needs a name for screen readers (`graft test --a11y` found it).
        if label.allSatisfy(\.isWhitespace) { input += " aria-label=\"Date\"" }
        input += ">"
        return "<label class=\"graft-date-picker\">\(HTMLText.escape(label)) \(input)</label>"
    }
}
