import GraftHost

/// One placement on the current screen and what stands there: the plugin's
/// live instance, or nothing when a placeholder was rendered instead.
struct ScreenSlot {
    let placement: FlowInstance
    /// The editor's definition of the placed component.
    let definition: ComponentContract
    var instance: ComponentInstance?
    /// The inputs last given to the instance, after `{{variables.…}}` were resolved.
    var boundInputs: [String: GraftValue]

    /// The contract events are checked against: the plugin's when the
    /// component is live, otherwise the editor's.
    var contract: ComponentContract { instance?.component.contract ?? definition }
}
