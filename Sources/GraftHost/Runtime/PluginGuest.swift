/// A plugin whose code runs in this process inside a runtime that contains
/// it: a WebAssembly instance (`WasmPlugin`, with the `WebAssembly` trait).
/// The third side of the call seam, beside a mapped image (`LocalInstance`)
/// and a runner child (`RunnerInstance`): the registry, contracts, instances
/// and the debugger see the same `LoadedPlugin`, and each call goes here.
protocol PluginGuest: AnyObject, Sendable {
    /// Creates an instance of `component` in the guest.
    func makeSide(of component: RegisteredComponent, inputs: [String: GraftValue], context: InstanceContext) throws(GraftError)
        -> any InstanceSide
    /// Calls the guest's validator.
    func validate(_ validator: RegisteredValidator, _ value: GraftValue, params: [String]) throws(GraftError) -> ValidationOutcome
    /// Invokes the guest's action.
    func invoke(_ action: RegisteredAction, params: [String: GraftValue], payload: GraftValue?) throws(GraftError) -> ActionOutcome
}
