import GraftFlows
import GraftHost

/// Short ways to pick entries of one kind out of a transcript, so tests read
/// as what a tester checks.
extension Array where Element == TranscriptEntry {
    var renders: [RenderRecord] { compactMap { if case .render(let r) = $0.kind { r } else { nil } } }
    var events: [EventRecord] { compactMap { if case .event(let e) = $0.kind { e } else { nil } } }
    var actions: [ActionRecord] { compactMap { if case .action(let a) = $0.kind { a } else { nil } } }
    var validations: [ValidationRecord] { compactMap { if case .validation(let v) = $0.kind { v } else { nil } } }
    var warnings: [GraftWarning] { compactMap { if case .warning(let w) = $0.kind { w } else { nil } } }
    var variableChanges: [VariableChange] { compactMap { if case .variableChange(let c) = $0.kind { c } else { nil } } }
    var navigations: [NavigationRecord] { compactMap { if case .navigation(let n) = $0.kind { n } else { nil } } }

    /// The `type` of each entry's JSON form, in order: the shape of a run.
    var types: [String] { map { $0.json()["type"]?.stringValue ?? "?" } }
}
