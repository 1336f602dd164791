import Foundation
import GraftHost
import GraftTestSupport
import Logging

/// Tests look at results through the API; the host's log would only be noise.
let quietLogger = Logger(label: "graft.flows.test", factory: { _ in SwiftLogNoOpLogHandler() })

/// A host that sees no plugin folder: tests load exactly the plugins they name.
func emptyHost() -> GraftHost {
    GraftHost(searchPath: SearchPath(folders: []), logger: quietLogger)
}

/// A host with the first-party plugins `swift build` produced: DatePicker
/// (date_picker@1, @2) and Checkout (paywall, luhn…, format_currency, open_url).
func firstPartyHost() throws -> GraftHost {
    let host = emptyHost()
    try host.load(pluginAt: BuildProducts.plugin("DatePicker").path)
    try host.load(pluginAt: BuildProducts.plugin("Checkout").path)
    return host
}

/// A host with only the C fixture `good_echo` (component `echo`, action
/// `echo_action`, validators `nonempty` and `is_even`), compiled into `scratch`.
func echoHost(_ scratch: borrowing Scratch) throws -> GraftHost {
    let host = emptyHost()
    try host.load(pluginAt: Fixtures.build("good_echo", into: scratch.url).path)
    return host
}

/// A file of the repository, such as `Examples/flows/checkout.json`.
func repositoryFile(_ path: String) -> URL {
    Fixtures.root.appendingPathComponent(path)
}

/// The example checkout flow's text.
func checkoutFlowText() throws -> String {
    try String(contentsOf: repositoryFile("Examples/flows/checkout.json"), encoding: .utf8)
}
