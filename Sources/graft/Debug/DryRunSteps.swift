import GraftDebugger
import GraftHost

/// The `--interact ACTION[:JSON]` and `--emit EVENT[:JSON]` options of
/// `graft try` and `graft debug attach … try`, as sandbox steps:
/// interactions first, then simulated events, each in the order given.
enum DryRunSteps {
    static func parse(interactions: [String], emits: [String]) throws(GraftError) -> [DryRunStep] {
        var steps: [DryRunStep] = []
        for text in interactions {
            let (action, data) = try split(text, option: "--interact")
            steps.append(.interact(action: action, data: data))
        }
        for text in emits {
            let (event, payload) = try split(text, option: "--emit")
            steps.append(.emit(event: event, payload: payload))
        }
        return steps
    }

    /// `NAME` or `NAME:JSON`.
    private static func split(_ text: String, option: String) throws(GraftError) -> (String, GraftValue?) {
        guard let colon = text.firstIndex(of: ":") else { return (text, nil) }
        let name = String(text[..<colon])
        do {
            return (name, try GraftValue(json: String(text[text.index(after: colon)...])))
        } catch {
            throw GraftError(.invalidJSON, "\(option) \(name): the JSON after ':' \(error.message)")
        }
    }

    /// `--config JSON`: a JSON object of inputs.
    static func inputs(fromConfig config: String?) throws(GraftError) -> [String: GraftValue]? {
        guard let config else { return nil }
        let value: GraftValue
        do throws(GraftError) {
            value = try GraftValue(json: config)
        } catch {
            throw GraftError(error.code, "--config \(error.message)")
        }
        guard let object = value.objectValue else {
            throw GraftError(.invalidConfig, "--config must be a JSON object of inputs.")
        }
        return object
    }
}
