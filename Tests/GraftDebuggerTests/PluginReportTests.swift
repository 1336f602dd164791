import GraftDebugger
import GraftHost
import GraftTestSupport
import Testing

@Suite("Plugin report")
struct PluginReportTests {
    @Test("sorted and stable: plugins by id, each one's contents by key and version, whatever the load order")
    func sorted() throws {
        let forward = emptyHost()
        try forward.load(pluginAt: BuildProducts.plugin("DatePicker").path)
        try forward.load(pluginAt: BuildProducts.plugin("Checkout").path)
        let backward = emptyHost()
        try backward.load(pluginAt: BuildProducts.plugin("Checkout").path)
        try backward.load(pluginAt: BuildProducts.plugin("DatePicker").path)
        let report = PluginReport(host: forward)
        #expect(report.plugins.map(\.id) == ["dev.graft.checkout", "dev.graft.date-picker"])
        let picker = try #require(report.plugins.last)
        #expect(picker.components.map(\.reference.description) == ["date_picker@1", "date_picker@2"])
        let checkout = try #require(report.plugins.first)
        #expect(checkout.validators.map(\.name) == checkout.validators.map(\.name).sorted())
        #expect(report.json.jsonText == PluginReport(host: backward).json.jsonText)
        #expect(report.debuggerText == PluginReport(host: backward).debuggerText)
    }

    @Test("plugins and their components sort in natural order: rating2 before rating10, as people count")
    func naturalOrder() throws {
        let scratch = try Scratch()
        let host = emptyHost()
        for number in [10, 1, 2] {
            let file = try Fixtures.build(
                "hostile", into: scratch.url,
                defines: ["HOSTILE_ID": "\"test.rating\(number)\"", "HOSTILE_KEY": "\"rating\(number)\""], outputName: "librating\(number).so")
            try host.load(pluginAt: file.path)
        }
        let report = PluginReport(host: host)
        #expect(report.plugins.map(\.id) == ["test.rating1", "test.rating2", "test.rating10"])
        #expect(report.json["plugins"]?.listValue?.map { $0["id"] } == ["test.rating1", "test.rating2", "test.rating10"])
    }

    @Test("the JSON report is written in its canonical form: keys in byte order, every plugin, contract and failure in it")
    func jsonText() throws {
        let scratch = try Scratch()
        let host = emptyHost()
        try host.load(pluginAt: BuildProducts.plugin("DatePicker").path)
        try host.load(pluginAt: BuildProducts.plugin("Checkout").path)
        let broken = try Fixtures.build("bad_abi_major", into: scratch.url)
        #expect(throws: GraftError.self) { try host.load(pluginAt: broken.path) }
        let report = PluginReport(host: host)
        let text = report.jsonText
        #expect(try GraftValue(json: text).jsonText == text)
        #expect(report.json.jsonText == text)

        let failure = try #require(report.json["failures"]?.listValue?.first)
        #expect(failure["path"] == .string(broken.path))
        #expect(failure["code"] == "abi_incompatible")
        let plugins = try #require(report.json["plugins"]?.listValue)
        #expect(plugins.map { $0["id"] } == [.string("dev.graft.checkout"), .string("dev.graft.date-picker")])
        for (plugin, info) in zip(plugins, report.plugins) {
            #expect(plugin == PluginReport.json(plugin: info))
            #expect(plugin["status"] == "loaded")
            #expect(plugin["vendor"] == info.vendor.map { .string($0) })
            #expect(plugin["components"]?.listValue?.count == info.components.count)
            #expect(plugin["validators"]?.listValue?.count == info.validators.count)
            #expect(plugin["actions"]?.listValue?.count == info.actions.count)
        }
        let picker = try #require(report.plugins.last?.components.last)
        let component = PluginReport.json(component: picker)
        #expect(component["key"] == .string(picker.key))
        #expect(component["version"] == .number(Double(picker.version)))
        #expect(component["inputs"]?.objectValue?.count == picker.inputs.count)
        #expect(component["outputs"]?["date_selected"]?["payload"] == ["date": "string", "timestamp": "number"])
        #expect(component["interactions"]?.listValue?.first?["data"] == ["date": "string"])
        let checkout = try #require(report.plugins.first)
        for (index, validator) in checkout.validators.enumerated() {
            #expect(PluginReport.json(validator: validator) == plugins[0]["validators"]?.listValue?[index])
        }
        for (index, action) in checkout.actions.enumerated() {
            #expect(PluginReport.json(action: action) == plugins[0]["actions"]?.listValue?[index])
        }
        #expect(!checkout.validators.isEmpty && !checkout.actions.isEmpty)
    }

    @Test("the debugger layout shows failed plugins first, with code and message, then each plugin")
    func failuresFirst() throws {
        let scratch = try Scratch()
        let host = emptyHost()
        try host.load(pluginAt: BuildProducts.plugin("DatePicker").path)
        let broken = try Fixtures.build("bad_abi_major", into: scratch.url)
        #expect(throws: GraftError.self) { try host.load(pluginAt: broken.path) }
        let text = PluginReport(host: host).debuggerText
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "1 plugin loaded, 1 failed to load")
        let failed = try #require(lines.firstIndex(of: "FAILED  \(broken.path)"))
        let plugin = try #require(lines.firstIndex { $0.hasPrefix("dev.graft.date-picker 1.0.0") })
        #expect(failed < plugin)
        #expect(lines[failed + 1].trimmingCharacters(in: .whitespaces).hasPrefix("abi_incompatible: "))
        #expect(text.contains("      outputs      date_selected {date: string, timestamp: number}"))
        #expect(text.contains("      interactions select {date: string}"))
        #expect(text.contains(#"      story delivery {"label":"Delivery date","min_date":"2027-01-01"}"#), "the debugger lists stories")
        #expect(text.contains("  status  loaded · ABI 1.3 · never unloaded (linked with the Swift runtime)"))
    }
}
