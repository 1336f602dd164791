import Foundation
import GraftDebugger
import GraftHost
import GraftTestSupport
import Logging

/// Tests look at results through the API; the host's log would only be noise.
let quietLogger = Logger(label: "graft.debugger.test", factory: { _ in SwiftLogNoOpLogHandler() })

/// A host that sees no plugin folder: tests load exactly the plugins they name.
func emptyHost(loadsFromCopies: Bool = false) -> GraftHost {
    GraftHost(searchPath: SearchPath(folders: []), logger: quietLogger, loadsFromCopies: loadsFromCopies)
}

/// A host with the first-party plugins `swift build` produced: DatePicker
/// (date_picker@1, @2, iso_date, add_days) and Checkout (paywall, luhn…, format_currency).
func firstPartyHost() throws -> GraftHost {
    let host = emptyHost()
    try host.load(pluginAt: BuildProducts.plugin("DatePicker").path)
    try host.load(pluginAt: BuildProducts.plugin("Checkout").path)
    return host
}

/// A file of the repository, such as `Examples/flows/checkout.json`.
func repositoryFile(_ path: String) -> URL {
    Fixtures.root.appendingPathComponent(path)
}

/// The example checkout flow, as the sandbox and the runner read it.
func checkoutWiring() throws -> FlowWiring {
    try FlowWiring(contentsOf: repositoryFile("Examples/flows/checkout.json"))
}
