import Foundation
import GuildCore
import GuildServer
import GuildStore
import Logging
import ServiceLifecycle

/// A real server on a short socket path under /tmp, with its own database, run in a ServiceGroup and shut
/// down gracefully when the body returns.
public enum TestDaemon {
    /// Runs `body` against a fresh server; `configure` adjusts its configuration first.
    public static func run<T: Sendable>(
        scryptLogN: Int = 4,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (_ socket: String, _ server: GuildServer) async throws -> T
    ) async throws -> T {
        try await Self.run(scryptLogN: scryptLogN, configure: configure) { socket, server, _ in try await body(socket, server) }
    }

    /// Runs `body` against a fresh server and the store under it; `configure` adjusts its configuration first.
    public static func run<T: Sendable>(
        scryptLogN: Int = 4,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (_ socket: String, _ server: GuildServer, _ store: SQLiteStore) async throws -> T
    ) async throws -> T {
        let directory = "/tmp/gs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/s.sock"
        let store = try SQLiteStore(configuration: .init(path: directory + "/guild.sqlite"))
        defer { try? store.close() }
        var configuration = ServerConfiguration(
            listen: .path(socket, mode: 0o600),
            adminUIDs: [getuid()],
            databasePath: directory + "/guild.sqlite"
        )
        configure(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
        let server = try await Self.makeServer(configuration: configuration, store: store, scryptLogN: scryptLogN, logger: logger) {
            readyContinuation.yield()
            readyContinuation.finish()
        }
        let group = ServiceGroup(services: [server], logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                // A server that stops before it listens ends the wait below, so the test fails instead of hanging.
                defer { readyContinuation.finish() }
                try await group.run()
                return nil
            }
            var listening = false
            for await _ in ready {
                listening = true
                break
            }
            guard listening else {
                try await tasks.waitForAll()
                throw TestDaemonError.stoppedBeforeListening
            }
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body(socket, server, store))
            } catch {
                outcome = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try outcome.get()
        }
    }

    /// The one place the test server is constructed: the server of `configuration` on `store`, with a cheap
    /// scrypt cost; `onReady` runs once it listens.
    static func makeServer(
        configuration: ServerConfiguration,
        store: SQLiteStore,
        scryptLogN: Int,
        logger: Logger,
        onReady: @escaping @Sendable () -> Void
    ) async throws -> GuildServer {
        try await GuildServer.make(
            configuration: configuration,
            store: store,
            hasher: OffloadedPasswordHasher(PasswordHasher(logN: scryptLogN)),
            logger: logger,
            ready: onReady
        )
    }
}

/// Why ``TestDaemon`` could not run a test.
public enum TestDaemonError: Error {
    /// The server stopped before it listened, without an error.
    case stoppedBeforeListening
}
