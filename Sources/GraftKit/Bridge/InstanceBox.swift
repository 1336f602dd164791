/// What a C instance's `plugin_data` holds (retained through `Unmanaged`
/// from `create` until `destroy`): the Swift component and its context.
final class InstanceBox {
    let component: any CustomComponent
    let context: ComponentContext
    /// The definition's declared inputs, for `update_inputs`.
    let inputs: [String: InputType]

    init(component: any CustomComponent, context: ComponentContext, inputs: [String: InputType]) {
        self.component = component
        self.context = context
        self.inputs = inputs
    }
}
