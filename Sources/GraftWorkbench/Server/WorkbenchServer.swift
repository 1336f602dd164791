import GraftHost
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The HTTP server: one Hummingbird router for the page, its assets, the
/// JSON API and the `/live` WebSocket, behind `RequestGuard`, listening on
/// 127.0.0.1 only. `start` returns once the socket is bound (or throws
/// `port_unavailable`); `stop` ends it.
final class WorkbenchServer: Sendable {
    private let parts: WorkbenchParts
    private let token: AccessToken
    private let logger: Logger
    /// The bound port, once known: the guard's Host and Origin checks need
    /// it, and with port 0 only the kernel knows it before binding.
    private let boundPort = BoundPort()
    private let running = Locked<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)

    init(parts: WorkbenchParts, token: AccessToken, logger: Logger) {
        self.parts = parts
        self.token = token
        self.logger = logger
    }

    /// Every route of the workbench, behind `RequestGuard` when `guardedAt`
    /// is given (the server always gives its port; a test in memory may
    /// leave the guard out, or keep it and see it refuse).
    static func router(parts: WorkbenchParts, token: AccessToken, guardedAt port: BoundPort?) -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        if let port { router.middlewares.add(RequestGuard(port: port, token: token)) }
        PageRoutes.add(to: router, parts: parts)
        PluginRoutes.add(to: router, parts: parts)
        SessionRoutes.add(to: router, parts: parts)
        StoryRoutes.add(to: router, parts: parts)
        AccessibilityRoutes.add(to: router, parts: parts)
        TryOutRoutes.add(to: router, parts: parts)
        LogRoutes.add(to: router, parts: parts)
        FlowRoutes.add(to: router, parts: parts)
        AttachRoutes.add(to: router, parts: parts)
        LiveChannel.add(to: router, hub: parts.hub) {
            var hello = PageRoutes.info(parts).objectValue ?? [:]
            hello["type"] = "hello"
            return .object(hello)
        }
        return router
    }

    func start(port: Int) async throws -> WorkbenchAddress {
        let router = Self.router(parts: parts, token: token, guardedAt: boundPort)
        let started = Started()
        let boundPort = self.boundPort
        let application = Application(
            router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: ApplicationConfiguration(address: .hostname(WorkbenchAddress.loopback, port: port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                boundPort.set(port)
                started.resume(.success(port))
            },
            logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: logger))
        let task = Task {
            do {
                try await group.run()
                started.resume(.failure(WorkbenchError(.portUnavailable, status: 500, "the workbench's server stopped before it listened.")))
            } catch {
                started.resume(.failure(Self.bindFailure(error, port: port)))
                throw error
            }
        }
        running.withLock { $0 = (group, task) }
        let bound = try await started.value()
        return WorkbenchAddress(port: bound)
    }

    /// Shuts down gracefully (no new connections, requests in flight
    /// finish), and cancels what is still open after `grace`: a page that
    /// does not answer the WebSocket's close, say.
    func stop(grace: Duration = .seconds(2)) async {
        guard let (group, task) = running.withLock({ running in defer { running = nil }; return running }) else { return }
        await group.triggerGracefulShutdown()
        let overdue = Task {
            try await Task.sleep(for: grace)
            task.cancel()
        }
        _ = await task.result
        overdue.cancel()
    }

    private static func bindFailure(_ error: any Error, port: Int) -> WorkbenchError {
        WorkbenchError(
            .portUnavailable, status: 500,
            "cannot listen on \(WorkbenchAddress.loopback):\(port) (\(error)); choose another --port, or 0 for any free one.")
    }
}

/// The port the server bound, or why it could not; awaited once.
private final class Started: Sendable {
    private let state = Locked<(result: Result<Int, any Error>?, waiter: CheckedContinuation<Int, any Error>?)>((nil, nil))

    func resume(_ result: Result<Int, any Error>) {
        let waiter: CheckedContinuation<Int, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

/// The port the server listens on, shared with the guard: 0 until bound.
final class BoundPort: Sendable {
    private let port = Atomic<Int>(0)

    func set(_ value: Int) { port.store(value, ordering: .releasing) }

    /// The address, or nil while the server is still binding.
    var address: WorkbenchAddress? {
        let value = port.load(ordering: .acquiring)
        return value == 0 ? nil : WorkbenchAddress(port: value)
    }
}
