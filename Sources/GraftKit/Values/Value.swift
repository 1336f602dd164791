/// A JSON-like value: what inputs, payloads, params and results are made of.
///
/// Values cross the C boundary as `graft_value_t` trees; GraftKit copies them
/// in and out, so a `Value` never points at host memory.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A finite number. Non-finite numbers travel to the host as `null`.
    case number(Double)
    case string(String)
    case list([Value])
    case object([String: Value])
}
