import GraftHost

/// The event a list of actions runs for: it names the instance in records
/// and warnings and supplies `{{payload.KEY}}`.
struct ActionTrigger {
    var instance: String
    var event: String
    var payload: GraftValue?
}
