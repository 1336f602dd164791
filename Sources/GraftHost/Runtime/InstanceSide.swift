import CGraft

/// One component instance on the side where its plugin's code runs: in this
/// process (`LocalInstance`, the plugin's C pointer) or in the plugin's
/// runner child (`RunnerInstance`, requests on its channel). `InstanceCore`
/// calls it under the instance's lock (graft.h's `[instance-serialized]`),
/// so a side needs no lock of its own, and keeps what is the same on both:
/// the inputs, the warnings, moving to a new build.
protocol InstanceSide: AnyObject {
    /// Renders, writing at most `outputLimit` bytes; says whether the output was cut.
    func render(as mediaType: MediaType, outputLimit: Int) throws(GraftError) -> (rendering: Rendering, overflowed: Bool)
    /// Whether the instance answered the interaction; what the contract says
    /// of the answer is recorded as warnings.
    func interact(_ action: String, data: GraftValue?) throws(GraftError) -> Bool
    /// Gives the instance new inputs; false when it cannot take them in place
    /// (it must be created again with them).
    func update(inputs: [String: GraftValue]) throws(GraftError) -> Bool
    /// The instance's saved state, or nil when it does not save state.
    func saveState() -> [UInt8]?
    /// Restores a saved state; false when it is not understood.
    func loadState(_ state: [UInt8]) -> Bool
    /// Tells the instance its container changed size (the context already says the new one).
    func resize(to size: ContainerSize)
    /// Destroys the instance. `closing`: for good (the instance closes), not
    /// because a new build takes it over.
    func destroy(closing: Bool)
}

extension RegisteredComponent {
    /// Creates an instance of this component where its plugin runs.
    /// `renderingAhead`: an instance a host app asked for, whose first render
    /// may travel with its create (isolated plugins); not a re-creation.
    func makeSide(
        inputs: [String: GraftValue], context: InstanceContext,
        cContext: UnsafeMutablePointer<graft_component_context_t>, renderingAhead: Bool = false
    ) throws(GraftError) -> any InstanceSide {
        if let runner = plugin.runner {
            return try RunnerInstance.make(on: runner, component: self, inputs: inputs, context: context, renderingAhead: renderingAhead)
        }
        if let guest = plugin.guest { return try guest.makeSide(of: self, inputs: inputs, context: context) }
        return try LocalInstance.make(component: self, inputs: inputs, context: context, cContext: cContext)
    }
}
