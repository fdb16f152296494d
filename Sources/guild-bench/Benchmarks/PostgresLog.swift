import Foundation
import GuildCore
import GuildHarness
import GuildPostgres
import GuildProtocol
import Logging
import PostgresNIO
import Synchronization

/// PostgreSQL, the engine for several hosts, on a throwaway server of its own (`scripts/postgres`): durable
/// writes through one host's group commit and through two hosts' at once (16 writers in all; each write one row
/// and its event, in one global sequence), beside the same machine's SQLite figure (`object.create` straight into
/// a `SQLiteStore`, ``StoreFloor``) and PostgreSQL's own floors: `pgbench`'s simple-update rate with 16 clients,
/// and `pgbench` running the store's own SQL per write, one transaction each (``writeScript``); and how long an
/// event written through host A takes to reach a follower on host B (LISTEN/NOTIFY).
/// Then fan-out with the subscribers split over two hosts (``PostgresFanOut``).
///
/// The same through real guildd processes: `user.update` from 16 bound clients through one PostgreSQL host, two
/// hosts (8 clients each), and the SQLite daemon. Elsewhere "hosts" are separate connections and writers in the
/// bench's process, each what one guildd holds (one write connection each: the event lane).
///
/// Targets (issue 41): one host's `user.update` at least 1.0x pgbench simple-update, two hosts at least 1.3x one,
/// and the split fan-out at least 0.6x the SQLite daemon's.
struct PostgresLog: Benchmark {
    let name = "postgres"
    let summary =
        "PostgreSQL: durable writes through one and two hosts (guildd and the store) vs pgbench and SQLite, cross-host event latency, "
        + "fan-out with subscribers split over two hosts"

    static let writers = 16

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let server = try PostgresServer()
        defer { server.stop() }
        let logger = {
            var logger = Logger(label: "guild-bench.postgres")
            logger.logLevel = .error
            return logger
        }()
        let location = try PostgresLocation(url: server.url)
        let setup = try await onThread("pg-setup") {
            let connection = try BlockingConnection(location, logger: logger)
            _ = try PostgresMigrator.migrate(connection)
            try connection.execute(
                "CREATE TABLE bench_object (id bigint PRIMARY KEY, bucket text NOT NULL, body jsonb NOT NULL, version bigint NOT NULL)"
            )
            // The pgbench floor's object ids, far above the store's.
            try connection.execute("CREATE SEQUENCE bench_floor_id START 1000000000000")
            return connection
        }
        defer { setup.close() }

        context.progress("  pgbench -i, then simple-update with \(Self.writers) clients")
        try server.pgbench(["-i", "-q", "-s", "16"])
        let hostA = PostgresWriter(location: location, logger: logger)
        let hostB = PostgresWriter(location: location, logger: logger)
        let floor = try StoreFloor(path: context.path("postgres-sqlite-floor.sqlite"))
        defer { try? floor.close() }
        var pgbenchRates: [Double] = []
        var scriptRates: [Double] = []
        var oneHost: [Double] = []
        var twoHosts: [Double] = []
        var sqlite: [Double] = []
        var nextID = Counter()
        for _ in 0..<context.runs {
            pgbenchRates.append(try server.simpleUpdateRate(clients: Self.writers, seconds: max(1, Int(context.duration.rounded()))))
            scriptRates.append(try server.scriptRate(Self.writeScript, clients: Self.writers, seconds: max(1, Int(context.duration.rounded()))))
            oneHost.append(try await Self.measure(writers: [hostA], tasks: Self.writers, duration: context.duration, ids: &nextID))
            twoHosts.append(try await Self.measure(writers: [hostA, hostB], tasks: Self.writers / 2, duration: context.duration, ids: &nextID))
            sqlite.append(try await floor.measure(tasks: Self.writers, duration: context.duration))
        }

        context.progress("  through guildd: user.update from \(Self.writers) clients, one PostgreSQL host and two, and SQLite")
        let (throughDaemons, following) = try await Self.withHosts(context, url: server.url, names: ["pg-a", "pg-b"]) { hosts in
            (
                try await Self.throughDaemons(context, hosts: hosts),
                try await PostgresFollowerMemory.measure(context, hosts: hosts, writer: hostA, ids: &nextID)
            )
        }

        context.progress("  cross-host event latency: writes through A, a follower on B")
        let latencies = try await Self.crossHostLatency(
            location: location,
            writer: hostA,
            count: context.quick ? 200 : 1_000,
            ids: &nextID,
            logger: logger
        )
        try await hostA.close()
        try await hostB.close()

        let fanOut = try await PostgresFanOut.measure(context, server: server, setup: setup)
        let events = try await onThread("pg-count") { try PostgresEventLog.head(on: setup) }
        let medianPGBench = Stats.median(pgbenchRates)
        let medianScript = Stats.median(scriptRates)
        func spread(_ values: [Double]) -> String { "runs \(values.map { Format.grouped($0) }.joined(separator: ", "))" }
        return [
            Measurement(
                benchmark: self.name,
                figure: "guildd: user.update through one PostgreSQL host, \(Self.writers) clients",
                value: Stats.median(throughDaemons.oneHost),
                unit: .perSecond,
                baseline: medianPGBench,
                baselineName: "pgbench simple-update, \(Self.writers) clients",
                target: .ratio(.atLeast, 1.0),
                note: spread(throughDaemons.oneHost)
            ),
            Measurement(
                benchmark: self.name,
                figure: "guildd: user.update through two PostgreSQL hosts, \(Self.writers / 2) clients each",
                value: Stats.median(throughDaemons.twoHosts),
                unit: .perSecond,
                baseline: Stats.median(throughDaemons.oneHost),
                baselineName: "through one host",
                target: .ratio(.atLeast, 1.3),
                note: spread(throughDaemons.twoHosts)
            ),
            Measurement(
                benchmark: self.name,
                figure: "guildd: user.update through the SQLite daemon, \(Self.writers) clients",
                value: Stats.median(throughDaemons.sqlite),
                unit: .perSecond,
                note: spread(throughDaemons.sqlite)
            ),
            Measurement(
                benchmark: self.name,
                figure: "durable writes through one host, \(Self.writers) writers (row + event)",
                value: Stats.median(oneHost),
                unit: .perSecond,
                baseline: medianScript,
                baselineName: "pgbench running the same SQL, one transaction per write, \(Self.writers) clients",
                note: "\(spread(oneHost)); \(events) events in one sequence after the run"
            ),
            Measurement(
                benchmark: self.name,
                figure: "durable writes through two hosts, \(Self.writers / 2) writers each",
                value: Stats.median(twoHosts),
                unit: .perSecond,
                baseline: medianScript,
                baselineName: "pgbench running the same SQL, one transaction per write, \(Self.writers) clients",
                note: spread(twoHosts)
            ),
            Measurement(
                benchmark: self.name,
                figure: "pgbench with the store's SQL per write (row, event, head, notify; one transaction each), \(Self.writers) clients",
                value: medianScript,
                unit: .perSecond,
                baseline: medianPGBench,
                baselineName: "pgbench simple-update",
                note: spread(scriptRates)
            ),
            Measurement(
                benchmark: self.name,
                figure: "SQLite on the same machine: object.create into the store, \(Self.writers) tasks",
                value: Stats.median(sqlite),
                unit: .perSecond,
                baseline: Stats.median(oneHost),
                baselineName: "PostgreSQL through one host",
                note: spread(sqlite)
            ),
            Measurement(
                benchmark: self.name,
                figure: "pgbench simple-update, \(Self.writers) clients (the floor)",
                value: medianPGBench,
                unit: .perSecond,
                note: spread(pgbenchRates)
            ),
            Measurement(
                benchmark: self.name,
                figure: "cross-host event latency p50 (write on A -> follower on B)",
                value: Stats.percentile(sorted: latencies, 50),
                unit: .milliseconds,
                note: "\(latencies.count) writes, one at a time"
            ),
            Measurement(
                benchmark: self.name,
                figure: "cross-host event latency p99",
                value: Stats.percentile(sorted: latencies, 99),
                unit: .milliseconds
            ),
        ] + following + fanOut
    }

    /// `user.update` per second from 16 bound clients (``DurableWrites/pollUpdates(_:duration:counter:)``)
    /// through one guildd on PostgreSQL, through two (8 clients each, the same users: a session opened on one
    /// host is valid on the other), and through the shared SQLite daemon.
    private static func throughDaemons(
        _ context: BenchContext,
        hosts: [Daemon]
    ) async throws -> (oneHost: [Double], twoHosts: [Double], sqlite: [Double]) {
        let sqlite = try await context.sharedDaemon()
        func sessions(on sockets: [String], register: String) async throws -> [LineConnection] {
            var connections: [LineConnection] = []
            let registrar = try LineConnection(path: register)
            defer { registrar.close() }
            let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
            for (index, socket) in sockets.enumerated() {
                let auth = try registrar.call(
                    UserMethods.Register.self,
                    .init(username: "pg-\(suffix)-\(index)", password: "bench-password", displayName: "n0")
                )
                let connection = try LineConnection(path: socket)
                _ = try connection.call(SessionMethods.Authenticate.self, .init(accessToken: auth.accessToken))
                connections.append(connection)
            }
            return connections
        }
        let (a, b) = (hosts[0].socketPath, hosts[1].socketPath)
        let oneHost = try await sessions(on: Array(repeating: a, count: Self.writers), register: a)
        let twoHosts = try await sessions(on: (0..<Self.writers).map { $0 % 2 == 0 ? a : b }, register: a)
        let onSQLite = try await sessions(on: Array(repeating: sqlite.socketPath, count: Self.writers), register: sqlite.socketPath)
        defer { for connection in oneHost + twoHosts + onSQLite { connection.close() } }
        var rates: (oneHost: [Double], twoHosts: [Double], sqlite: [Double]) = ([], [], [])
        let duration = context.duration
        for run in 1...context.runs {
            rates.oneHost.append(
                try await onThread("pg-one-host") { try DurableWrites.pollUpdates(oneHost, duration: duration, counter: run * 10_000_000) }
            )
            rates.twoHosts.append(
                try await onThread("pg-two-hosts") { try DurableWrites.pollUpdates(twoHosts, duration: duration, counter: run * 10_000_000) }
            )
            rates.sqlite.append(
                try await onThread("sqlite-host") { try DurableWrites.pollUpdates(onSQLite, duration: duration, counter: run * 10_000_000) }
            )
        }
        return rates
    }

    /// Runs `body` against guildd hosts on the PostgreSQL database at `url`, one per name (socket `NAME.sock`, log
    /// `guildd-NAME.log` in the work directory), started one after the other, and stops them afterwards, reporting
    /// the problems in their logs.
    static func withHosts<T>(_ context: BenchContext, url: String, names: [String], _ body: ([Daemon]) async throws -> T) async throws -> T {
        var hosts: [Daemon] = []
        func stopAll() async {
            for host in hosts {
                await host.stop()
                reportDaemonLogProblems(host, context)
            }
        }
        do {
            for name in names {
                let socket = context.path("\(name).sock")
                let host = try await Daemon.launch(
                    name: "guildd-\(name)",
                    executable: context.guilddPath,
                    arguments: ["--socket", socket, "--database", url, "--scrypt-log-n", "4"],
                    socketPath: socket,
                    logPath: context.path("guildd-\(name).log")
                )
                hosts.append(host)
                try await host.waitUntilReady()
            }
            let result = try await body(hosts)
            await stopAll()
            return result
        } catch {
            await stopAll()
            throw error
        }
    }

    /// Unique row ids across the runs.
    struct Counter {
        var next: Int64 = 1

        mutating func take(_ count: Int64) -> Int64 {
            defer { self.next += count }
            return self.next
        }
    }

    /// Writes/s by `tasks` writers per host for `duration` seconds, each write one row and its event.
    static func measure(writers: [PostgresWriter], tasks: Int, duration: Double, ids: inout Counter) async throws -> Double {
        let base = ids.take(100_000_000)
        let start = monotonicNanos()
        let deadline = start + UInt64(duration * 1e9)
        let written = try await withThrowingTaskGroup(of: Int.self) { group in
            for (host, writer) in writers.enumerated() {
                for task in 0..<tasks {
                    let first = base + Int64((host * tasks + task) * 1_000_000)
                    group.addTask {
                        var count: Int64 = 0
                        while monotonicNanos() < deadline {
                            let id = first + count
                            _ = try await writer.write(Self.create(id))
                            count += 1
                        }
                        return Int(count)
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(written) / (Double(monotonicNanos() - start) / 1e9)
    }

    /// pgbench's script for the second floor: what ``create(_:)`` and the writer's commit send for one write,
    /// one transaction per write (the row, the log's head locked, the event, the head moved, the notification).
    static let writeScript = """
        BEGIN;
        INSERT INTO bench_object (id, bucket, body, version) VALUES (nextval('bench_floor_id'), 'writes', '{"n":1}'::jsonb, 1);
        SELECT seq + 1 AS next FROM event_head FOR UPDATE \\gset
        INSERT INTO event (seq, topic, kind, audience, body, time, routing) VALUES (:next, 'object:app/writes', 'object.created', 'acl', '\\x7b7d'::bytea, 1700000000000, '{}');
        UPDATE event_head SET seq = :next;
        SELECT pg_notify('\(PostgresEventLog.channel)', ':next');
        END;

        """

    /// A write shaped like `object.create`: the object's row and its event.
    static func create(_ id: Int64) -> @Sendable (PostgresWriteContext) throws -> Int64 {
        { context in
            let body = #"{"n":\#(id)}"#
            try context.connection.execute("INSERT INTO bench_object (id, bucket, body, version) VALUES (\(id), 'writes', \(body)::jsonb, 1)")
            return try context.append(
                PostgresEvent(
                    topic: EventTopic(area: "object", id: "app/writes"),
                    kind: "object.created",
                    audience: "acl",
                    time: Int64(Date().timeIntervalSince1970 * 1_000),
                    body: Array(#"{"kind":"object.created","objectID":"\#(id)","body":\#(body)}"#.utf8)
                )
            )
        }
    }

    /// Milliseconds from a write's start on host A to its event's delivery by a follower on host B, one write
    /// at a time, sorted.
    static func crossHostLatency(
        location: PostgresLocation,
        writer: PostgresWriter,
        count: Int,
        ids: inout Counter,
        logger: Logger
    ) async throws -> [Double] {
        let head = try await writer.write { context in try PostgresEventLog.head(on: context.connection) }
        let arrivals = ArrivalLog()
        let follower = PostgresEventFollower(location: location, after: head, pollInterval: .milliseconds(500), logger: logger) { events in
            let now = monotonicNanos()
            for event in events { arrivals.arrived(event.seq, at: now) }
        }
        let following = Task { await follower.run() }
        defer { following.cancel() }
        // The follower is listening once it has connected; the first write after that is measured.
        while follower.connects == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(100))
        let base = ids.take(Int64(count))
        var latencies: [Double] = []
        for index in 0..<count {
            let started = monotonicNanos()
            _ = try await writer.write(Self.create(base + Int64(index)))
            // The only writer, one write at a time: its event is the next after the head it started from (what
            // `append` returns names the event inside its transaction only).
            let seq = head + 1 + Int64(index)
            let deadline = started + 5_000_000_000
            while arrivals.time(of: seq) == nil, monotonicNanos() < deadline { try await Task.sleep(for: .microseconds(100)) }
            guard let arrived = arrivals.time(of: seq) else { throw DaemonError("event \(seq) did not reach host B within 5 s") }
            latencies.append(Double(arrived - started) / 1e6)
        }
        return latencies.sorted()
    }
}

/// When each event reached the follower.
private final class ArrivalLog: Sendable {
    private let times = Mutex<[Int64: UInt64]>([:])

    func arrived(_ seq: Int64, at time: UInt64) { self.times.withLock { $0[seq] = time } }

    func time(of seq: Int64) -> UInt64? { self.times.withLock { $0[seq] } }
}
