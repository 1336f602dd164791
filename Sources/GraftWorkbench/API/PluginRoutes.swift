import FoundationEssentials
import GraftDebugger
import GraftHost
import GraftSupport
import Hummingbird
import HummingbirdWebSocket

/// `GET /api/plugins`: the report `graft list --json` prints (the same
/// `PluginReport`), each failure marked `quarantined` when the registry
/// cache holds it in quarantine. `GET /api/components/KEY[@V]`: one
/// component's contract, inputs and outputs in declared order.
enum PluginRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.get("/api/plugins") { _, _ in
            HTTPReply.json(report(parts.host))
        }
        router.get("/api/components/{reference}") { _, context in
            let text = PercentDecoding.decode(context.parameters.get("reference") ?? "")
            do throws(GraftError) {
                let component = try parts.host.resolve(try ComponentReference(parsing: text))
                return HTTPReply.json(.object([
                    "component": ContractJSON.component(component.contract), "plugin": .string(component.pluginID),
                    "pluginPath": .string(component.pluginPath),
                ]))
            } catch {
                throw WorkbenchError(error)
            }
        }
    }

    static func report(_ host: GraftHost) -> GraftValue {
        let report = PluginReport(host: host)
        let held = Set(host.quarantined.map(\.path))
        let failures: [GraftValue] = report.failures.map { failure in
            var object = PluginReport.json(failure: failure).objectValue ?? [:]
            let real = FilePaths.resolvingSymlinks(failure.path)
            object["quarantined"] = .bool(held.contains(real) || held.contains(failure.path))
            return .object(object)
        }
        var json = report.json.objectValue ?? [:]
        json["failures"] = .list(failures)
        return .object(json)
    }
}
