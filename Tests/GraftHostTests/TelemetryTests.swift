import CoreMetrics
import Foundation
import GraftTestSupport
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

@testable import GraftHost

/// Metrics and spans through swift-metrics and swift-distributed-tracing,
/// recorded by their test backends: every plugin call counted, timed and
/// traced per plugin, failures by code, restarts, quarantines and sandbox
/// denials. (What it costs a host with no backend, one nil check per call,
/// is measured by `graft bench components validators`.)
@Suite("Telemetry", .serialized, .timeLimit(.minutes(10)))
struct TelemetryTests {
    /// Both backends, bootstrapped once for the whole test process (each
    /// library allows one bootstrap). Hosts other tests make afterwards
    /// report through them too, which only exercises this code more.
    static let backends: (metrics: TestMetrics, tracer: InMemoryTracer) = {
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return (metrics, tracer)
    }()

    static func host(_ folder: URL, limits: IsolationLimits = IsolationLimits()) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, isolation: .perPlugin, limits: limits),
            logger: quietLogger)
        host.loadPlugins()
        return host
    }

    static func calls(_ metrics: TestMetrics, _ plugin: String, _ call: String) -> Int64 {
        metrics.counterTotal(label: "graft_plugin_calls_total", dimensions: [("plugin", plugin), ("call", call)])
    }

    @Test("every call into an isolated plugin is counted, timed and traced under its plugin id; failures by code; a restart and a refused act are counted")
    func callsAreMeasured() throws {
        let (metrics, tracer) = Self.backends
        let scratch = try Scratch()
        let plugin = "test.telemetry\(UUID().uuidString.prefix(8))"
        try Fixtures.build("hostile", into: scratch.url, defines: ["HOSTILE_ID": "\"\(plugin)\""])
        let host = Self.host(scratch.url, limits: IsolationLimits(call: .seconds(1)))
        let probe = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "sleep", "target": "0"])
        // Inside a span of the caller's: the plugin's span is its child.
        let request = tracer.startSpan("request")
        let rendered = try ServiceContext.withValue(request.context) { try probe.render().text }
        request.end()
        #expect(rendered == "sleep: ok ")
        _ = probe.interact("nothing_declared")
        try probe.update(inputs: ["act": "read", "target": "/etc/shadow"])
        _ = try probe.render()  // refused by the sandbox: a denial
        #expect(try host.validate("probe", value: "sleep", params: ["0"]).isValid)
        _ = try host.invokeAction("probe", params: ["act": "sleep", "target": "0"])
        // Past its 1 s deadline: plugin_timeout, and the next call restarts the child.
        try probe.update(inputs: ["act": "sleep", "target": "5000"])
        let timeout = #expect(throws: GraftError.self) { try probe.render() }
        #expect(timeout?.code == .pluginTimeout)
        try probe.update(inputs: ["act": "sleep", "target": "0"])

        #expect(Self.calls(metrics, plugin, "create") == 1)
        #expect(Self.calls(metrics, plugin, "render") == 3)
        #expect(Self.calls(metrics, plugin, "interact") == 1)
        #expect(Self.calls(metrics, plugin, "update") == 3)
        #expect(Self.calls(metrics, plugin, "validate") == 1)
        #expect(Self.calls(metrics, plugin, "action") == 1)
        let durations = try metrics.expectTimer("graft_plugin_call_duration", [("plugin", plugin), ("call", "render")])
        #expect(durations.values.count == 3)
        #expect(durations.values.allSatisfy { $0 > 0 })
        // Beside the wall time, the CPU time of the plugin's child over the call.
        let cpuTimes = try metrics.expectTimer("graft_plugin_call_cpu", [("plugin", plugin), ("call", "render")])
        #expect(cpuTimes.values.count >= 2)
        #expect(cpuTimes.values.allSatisfy { $0 >= 0 })
        #expect(
            metrics.counterTotal(
                label: "graft_plugin_call_failures_total", dimensions: [("plugin", plugin), ("call", "render"), ("code", "plugin_timeout")])
                == 1)
        #expect(metrics.counterTotal(label: "graft_plugin_restarts_total", dimensions: [("plugin", plugin)]) == 1)
        #expect(metrics.counterTotal(label: "graft_sandbox_denials_total", dimensions: [("plugin", plugin)]) >= 1)

        let spans = tracer.finishedSpans.filter { $0.attributes["graft.plugin.id"]?.toSpanAttribute() == .string(plugin) }
        #expect(spans.filter { $0.operationName == "graft.render" }.count == 3)
        let first = try #require(spans.first { $0.operationName == "graft.render" })
        #expect(first.parentSpanID == request.context.inMemorySpanContext?.spanID, "the caller's span is the parent")
        let failed = try #require(spans.first { $0.status?.code == .error })
        #expect(failed.operationName == "graft.render")
        #expect(failed.attributes["graft.error.code"]?.toSpanAttribute() == .string("plugin_timeout"))
    }

    @Test("a plugin that crashes its runner three times in a minute is counted as quarantined")
    func quarantineIsCounted() throws {
        let (metrics, _) = Self.backends
        let scratch = try Scratch()
        // test.fragile's validator crashes its runner at every call.
        let plugin = "test.fragile"
        let before = metrics.counterTotal(label: "graft_plugin_quarantines_total", dimensions: [("plugin", plugin)])
        try Fixtures.build("bad_runtime", into: scratch.url, defines: ["FAULT_IN": "\"validate\"", "FAULT": "\"segv\""])
        let host = Self.host(scratch.url)
        let validator = try #require(host.validators.first)
        for _ in 0..<3 {
            #expect(throws: GraftError.self) { try validator.validate("x") }
        }
        #expect(metrics.counterTotal(label: "graft_plugin_quarantines_total", dimensions: [("plugin", plugin)]) >= before + 1)
    }

    @Test("an action's wall and CPU time come with its result, in process and isolated; a call that spins shows its CPU")
    func actionTimes() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let host = Self.host(scratch.url)
        _ = try host.invokeAction("probe", params: ["act": "sleep", "target": "0"])  // its child started
        let spun = try host.invokeAction("probe", params: ["act": "res_spin", "target": "50"])
        #expect(spun.variables["outcome"] == "res_spin: ok 50 ms")
        let wall = try #require(spun.wallTime), cpu = try #require(spun.cpuTime)
        #expect(wall >= .milliseconds(50) && cpu >= .milliseconds(40) && cpu <= wall + .milliseconds(20), "wall \(wall), CPU \(cpu)")
        let idle = try host.invokeAction("probe", params: ["act": "sleep", "target": "50"])
        #expect(try #require(idle.wallTime) >= .milliseconds(50))
        #expect(try #require(idle.cpuTime) < .milliseconds(40), "sleeping uses little CPU: \(String(describing: idle.cpuTime))")
    }
}
