import CoreMetrics
import Tracing

/// The calls a host makes into a plugin, as its metrics and spans name them.
enum PluginCall: String, Sendable, CaseIterable {
    case create, render, interact, update, validate, action
}

/// What one plugin's calls report through swift-metrics and
/// swift-distributed-tracing, the libraries a Swift server already
/// bootstraps: per call, a counter, a timer and a span; per failure, a
/// counter by error code; and counters of restarts, quarantines and acts the
/// sandbox refused.
///
/// Made when the plugin registers, and only when the app has bootstrapped a
/// metrics or a tracing backend by then (as both libraries ask: at start): a
/// plugin of a host without one has none, and its calls pay one nil check.
///
/// | metric | kind | dimensions |
/// |---|---|---|
/// | `graft_plugin_calls_total` | counter | `plugin`, `call` |
/// | `graft_plugin_call_duration` | timer (nanoseconds) | `plugin`, `call` |
/// | `graft_plugin_call_cpu` | timer (nanoseconds): the CPU time the call used (its thread's in process, its runner child's) | `plugin`, `call` |
/// | `graft_plugin_call_failures_total` | counter | `plugin`, `call`, `code` |
/// | `graft_plugin_restarts_total` | counter | `plugin` |
/// | `graft_plugin_quarantines_total` | counter | `plugin` |
/// | `graft_sandbox_denials_total` | counter | `plugin` |
///
/// Each call's span is named `graft.<call>` (`graft.render`), a child of the
/// caller's `ServiceContext.current`, with attributes `graft.plugin.id` and,
/// when the call fails, `graft.error.code` and an error status.
final class PluginTelemetry: Sendable {
    let pluginID: String
    private let tracer: (any Tracer)?
    /// By `PluginCall`, in `allCases` order; empty when no metrics backend is bootstrapped.
    private let calls: [Counter]
    private let durations: [Timer]
    private let cpuTimes: [Timer]
    private let measuring: Bool

    /// The backends the app has bootstrapped, looked up once for a batch of
    /// plugins: each lookup takes both libraries' locks, and a warm start of
    /// 200 plugins spent 7% of its time on them.
    struct Backends {
        let measuring: Bool
        let tracer: (any Tracer)?

        static var current: Backends {
            // Metatypes compared, not `is`: a dynamic cast per plugin loaded was
            // a tenth of what a load costs beyond its dlopen (`graft bench load`).
            // `tracer` casts each instrument to `any Tracer` (a conformance
            // lookup); with none bootstrapped there is nothing to look for.
            let tracer = type(of: InstrumentationSystem.instrument) == NoOpInstrument.self ? nil : InstrumentationSystem.tracer
            return Backends(
                measuring: type(of: MetricsSystem.factory) != NOOPMetricsHandler.self,
                tracer: tracer.flatMap { type(of: $0) != NoOpTracer.self ? $0 : nil })
        }
    }

    /// The telemetry of plugin `pluginID`, or nil when neither a metrics nor a tracing backend is bootstrapped.
    static func make(pluginID: String, backends: Backends = .current) -> PluginTelemetry? {
        guard backends.measuring || backends.tracer != nil else { return nil }
        return PluginTelemetry(pluginID: pluginID, measuring: backends.measuring, tracer: backends.tracer)
    }

    private init(pluginID: String, measuring: Bool, tracer: (any Tracer)?) {
        self.pluginID = pluginID
        self.measuring = measuring
        self.tracer = tracer
        let dimensions = { (call: PluginCall) in [("plugin", pluginID), ("call", call.rawValue)] }
        calls = measuring ? PluginCall.allCases.map { Counter(label: "graft_plugin_calls_total", dimensions: dimensions($0)) } : []
        durations = measuring ? PluginCall.allCases.map { Timer(label: "graft_plugin_call_duration", dimensions: dimensions($0)) } : []
        cpuTimes = measuring ? PluginCall.allCases.map { Timer(label: "graft_plugin_call_cpu", dimensions: dimensions($0)) } : []
    }

    /// Runs `body`, the call `call` into this plugin, counted, timed and in
    /// a span; `cpu` reads the CPU time where the plugin runs, before and after.
    func measure<T>(_ call: PluginCall, cpu: () -> Duration? = { nil }, _ body: () throws(GraftError) -> T) throws(GraftError) -> T {
        let index = PluginCall.allCases.firstIndex(of: call)!
        let span = tracer.map { tracer in
            let span = tracer.startAnySpan("graft.\(call.rawValue)", context: ServiceContext.current ?? .topLevel, ofKind: .client)
            span.attributes["graft.plugin.id"] = pluginID
            return span
        }
        let start = ContinuousClock.now
        let cpuBefore = measuring ? cpu() : nil
        defer {
            if measuring {
                func nanoseconds(_ duration: Duration) -> Int64 {
                    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
                }
                calls[index].increment()
                durations[index].recordNanoseconds(nanoseconds(ContinuousClock.now - start))
                if let cpuBefore, let cpuAfter = cpu() { cpuTimes[index].recordNanoseconds(nanoseconds(cpuAfter - cpuBefore)) }
            }
            span?.end()
        }
        do throws(GraftError) {
            return try body()
        } catch {
            if measuring {
                Counter(
                    label: "graft_plugin_call_failures_total",
                    dimensions: [("plugin", pluginID), ("call", call.rawValue), ("code", error.code.rawValue)]
                ).increment()
            }
            if let span {
                span.attributes["graft.error.code"] = error.code.rawValue
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error, message: error.code.rawValue))
            }
            throw error
        }
    }

    /// The plugin's child process was started again.
    func restarted() {
        if measuring { Counter(label: "graft_plugin_restarts_total", dimensions: [("plugin", pluginID)]).increment() }
    }

    /// The plugin was quarantined.
    func quarantined() {
        if measuring { Counter(label: "graft_plugin_quarantines_total", dimensions: [("plugin", pluginID)]).increment() }
    }

    /// The sandbox refused `count` acts to `plugin` (its id, or the file's path
    /// when a scan refused them before the plugin said its id). Counted only
    /// when a metrics backend is bootstrapped.
    static func denied(_ count: Int, plugin: String) {
        guard count > 0, !(MetricsSystem.factory is NOOPMetricsHandler) else { return }
        Counter(label: "graft_sandbox_denials_total", dimensions: [("plugin", plugin)]).increment(by: count)
    }
}
