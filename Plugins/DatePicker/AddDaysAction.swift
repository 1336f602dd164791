import GraftKit

/// The `add_days` action: sets flow variable `variable` to `date` shifted by
/// `days` (a whole number, may be negative). Without a `date` param it uses
/// the triggering event's payload `date` (as `date_selected` carries).
enum AddDaysAction {
    static func perform(_ invocation: ActionInvocation) -> ActionResult {
        let params = invocation.params
        guard let text = params["date"]?.stringValue ?? invocation.payload?["date"]?.stringValue else {
            return .failure("add_days needs a \"date\" param (or an event payload with \"date\").")
        }
        guard let date = CalendarDate(parsing: text) else {
            return .failure("\"\(text)\" is not a YYYY-MM-DD calendar date.")
        }
        guard let days = params["days"]?.intValue else {
            return .failure("add_days needs \"days\", a whole number; got \(params["days"]?.description ?? "nothing").")
        }
        guard let variable = params["variable"]?.stringValue, !variable.isEmpty else {
            return .failure("add_days needs \"variable\", the name of the flow variable to set.")
        }
        guard let shifted = date.adding(days: days) else {
            return .failure("\(date) plus \(days) days falls outside the years 0000-9999.")
        }
        return .success(variables: [variable: .string(shifted.description)],
                        result: ["date": .string(shifted.description)])
    }
}
