import Foundation
import GuildPostgres
import GuildStore
import GuildTestSupport
import Logging
import NIOPosix
import PostgresNIO
import Synchronization

/// The throwaway PostgreSQL server `scripts/test` starts (`scripts/postgres`), named by `GUILD_TEST_POSTGRES`;
/// each test gets a database of its own, dropped afterwards.
enum TestPostgres {
    /// The server's URL, when one is running for the tests.
    static let url = ProcessInfo.processInfo.environment["GUILD_TEST_POSTGRES"]

    /// Whether a server was started for the tests (`scripts/test` fails when it cannot start one).
    static var isConfigured: Bool { url != nil }

    static let logger: Logger = {
        var logger = Logger(label: "test-postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// How many tests hold a database at once. Swift Testing starts every test together; with all of them
    /// connected, the suites held 199 connections at the peak on an idle machine and went past the server's 200
    /// on a CI machine, whose refusals ("too many clients") failed 30 tests. Bounding the databases bounds the
    /// connections whatever the number of tests.
    private static let slots = Slots(16)

    /// Runs `body` with a fresh, empty database; drops it afterwards.
    static func withDatabase<T: Sendable>(_ body: (PostgresLocation) async throws -> T) async throws -> T {
        await slots.take()
        defer { slots.give() }
        let server = try PostgresLocation(url: url ?? "")
        let name = "guild_test_\(UUID().uuidString.prefix(8).lowercased())"
        try await blocking {
            let connection = try BlockingConnection(server, logger: logger)
            defer { connection.close() }
            try connection.execute("CREATE DATABASE \(unescaped: name)")
        }
        var location = server
        location.database = name
        do {
            let value = try await body(location)
            try await drop(name, on: server)
            return value
        } catch {
            try? await drop(name, on: server)
            throw error
        }
    }

    private static func drop(_ name: String, on server: PostgresLocation) async throws {
        try await blocking {
            let connection = try BlockingConnection(server, logger: logger)
            defer { connection.close() }
            try connection.execute("DROP DATABASE \(unescaped: name) WITH (FORCE)")
        }
    }

    /// A migrated, fresh database with `count` writers on it, as that many hosts would hold, and a read
    /// connection; closes them afterwards.
    static func withHosts<T: Sendable>(
        _ count: Int,
        _ body: (_ hosts: [PostgresWriter], _ reader: BlockingConnection) async throws -> T
    ) async throws -> T {
        try await withDatabase { location in
            let reader = try await connect(location)
            let hosts = (0..<count).map { _ in PostgresWriter(location: location, logger: logger) }
            func close() async {
                for host in hosts { try? await host.close() }
                try? await blocking { reader.close() }
            }
            do {
                _ = try await blocking { try PostgresMigrator.migrate(reader) }
                let value = try await body(hosts, reader)
                await close()
                return value
            } catch {
                await close()
                throw error
            }
        }
    }

    /// Opens a connection to `location` (on a thread of its own: it waits for the server).
    static func connect(_ location: PostgresLocation) async throws -> BlockingConnection {
        try await blocking { try BlockingConnection(location, logger: logger) }
    }

    /// Runs blocking PostgreSQL calls on a thread of their own, never on the cooperative pool, nor on a bounded
    /// pool: tests hold a transaction open on one call while another waits for its lock, so with every thread of
    /// a pool waiting, the call they wait for would queue behind them. NIO's pool has one thread per CPU; a CI run
    /// with two busy loops beside it stalled 46 tests at their 2-minute limit that way.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "test-postgres"
            thread.start()
        }
    }
}

/// A counting semaphore for tasks: `take` waits while every slot is taken, `give` wakes the longest waiter.
final class Slots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) { self.state = Mutex(State(free: count)) }

    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = self.state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    func give() {
        let next = self.state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return CheckedContinuation<Void, Never>?.none
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// A PostgreSQL server of a test's own (`scripts/postgres`), for faults that would disturb other tests: it
/// can be crashed and started again.
final class OwnPostgresServer: Sendable {
    let directory = "/tmp/gpo-\(UUID().uuidString.prefix(8))"
    let url: String

    init() throws {
        try Self.script("start", self.directory)
        self.url = "postgresql://postgres@/postgres?host=\(self.directory)"
    }

    /// A server that also listens on 127.0.0.1:`tlsPort`, for TLS only, with a self-signed certificate for
    /// `localhost` (``certificate``).
    init(tlsPort: Int) throws {
        try Self.script("start", self.directory, "\(tlsPort)")
        self.url = "postgresql://postgres@/postgres?host=\(self.directory)&port=\(tlsPort)"
    }

    /// The TLS server's certificate (PEM), its own root.
    var certificate: String { self.directory + "/data/server.crt" }

    /// Stops the server at once, as a crash would; its data stays.
    func crash() throws { try Self.script("crash", self.directory) }

    /// Starts the crashed server again (PostgreSQL recovers from its WAL).
    func restart() throws { try Self.script("start", self.directory) }

    /// Restarts the running server as an operator would (`pg_ctl restart -m fast`: every session is ended, the
    /// server shuts down cleanly and starts again with the options it was started with).
    func restartFast() throws { try Self.script("restart", self.directory) }

    /// Stops the server and removes its files.
    func remove() { try? Self.script("stop", self.directory) }

    /// Stops every process of the server (SIGSTOP), as a frozen machine or a network that drops packets looks
    /// to a client: its connections stay open and nothing answers. ``thaw()`` lets it go on.
    func freeze() throws {
        try self.signal("STOP")
    }

    /// Lets a frozen server go on (SIGCONT).
    func thaw() {
        try? self.signal("CONT")
    }

    private func signal(_ name: String) throws {
        let postmaster =
            try String(contentsOfFile: self.directory + "/data/postmaster.pid", encoding: .utf8)
            .split(separator: "\n").first.map(String.init) ?? ""
        guard Int32(postmaster) != nil else { throw OwnPostgresError.scriptFailed("signal \(name)", -1) }
        // The postmaster first when it goes on, last when it stops: it starts no new backend meanwhile.
        let command =
            name == "STOP" ? "pkill -STOP -P \(postmaster); kill -STOP \(postmaster)" : "kill -CONT \(postmaster); pkill -CONT -P \(postmaster)"
        guard system(command) == 0 || name == "CONT" else { throw OwnPostgresError.scriptFailed("signal \(name)", -1) }
    }

    /// Runs scripts/postgres and waits for it (`system`, on the calling pool thread). Its output is not read
    /// through a pipe: the server it starts could inherit the pipe's other end and hold it open.
    private static func script(_ command: String, _ directory: String, _ extra: String = "") throws {
        let script = Build.packageRoot.appendingPathComponent("scripts/postgres").path
        let status = system("'\(script)' \(command) '\(directory)' \(extra) >/dev/null")
        guard status == 0 else { throw OwnPostgresError.scriptFailed(command, status) }
    }
}

enum OwnPostgresError: Error {
    case scriptFailed(String, Int32)
}

extension Engine {
    /// Runs `body` with a fresh, empty store of this engine, schema migrated, seen through `sqlite`'s or
    /// `postgres`'s wrapper (one writer and a read connection); removes the store afterwards.
    func withFreshStore<Store, T: Sendable>(
        sqlite: (SQLiteStore) -> Store,
        postgres: (PostgresWriter, BlockingConnection) -> Store,
        _ body: (Store) async throws -> T
    ) async throws -> T {
        switch self {
        case .sqlite:
            let temp = try TemporaryStore()
            defer { temp.remove() }
            return try await body(sqlite(temp.store))
        case .postgres:
            return try await TestPostgres.withHosts(1) { hosts, reader in try await body(postgres(hosts[0], reader)) }
        }
    }
}
