extension GraftHost {
    /// Ends the child processes this host runs plugins in. From now on no
    /// isolated call is made (it fails with `host_shut_down`); calls in flight
    /// get until `grace` has passed to end, then every runner child is ended
    /// (asked to leave when idle, killed with a call still in flight, which
    /// fails with `host_shut_down`) and reaped, and so is the scanner child.
    /// Returns when every child is gone.
    ///
    /// Calls to plugins run in process are the app's own threads: they are
    /// neither refused nor waited for. A `GraftService` in a `ServiceGroup`
    /// calls this on graceful shutdown.
    public func shutDown(grace: Duration = .seconds(10)) {
        let until = ContinuousClock.now + grace
        // One deadline for all: a runner waited for leaves the others less time, not more.
        for runner in table.runners {
            runner.close(by: until)
        }
        scanner?.finish()
    }
}
