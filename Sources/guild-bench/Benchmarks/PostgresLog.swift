import Foundation
import GuildCore
import GuildHarness
import GuildPostgres
import Logging
import PostgresNIO
import Synchronization

/// PostgreSQL, the engine for several hosts, on a throwaway server of its own (`scripts/postgres`): durable
/// writes through one host's group commit and through two hosts' at once (16 writers in all; each write one row
/// and its event, in one global sequence), beside the same machine's SQLite figure (`object.create` straight into
/// a `SQLiteStore`, ``StoreFloor``) and PostgreSQL's own floor, `pgbench`'s simple-update rate with 16 clients;
/// and how long an event written through host A takes to reach a follower on host B (LISTEN/NOTIFY).
///
/// "Hosts" here are separate connections and writers in the bench's process, each what one guildd would hold;
/// the daemon does not serve PostgreSQL yet (protocol/postgresql.md).
struct PostgresLog: Benchmark {
    let name = "postgres"
    let summary = "PostgreSQL: durable writes through one and two hosts vs pgbench and SQLite, cross-host event latency"

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
        var oneHost: [Double] = []
        var twoHosts: [Double] = []
        var sqlite: [Double] = []
        var nextID = Counter()
        for _ in 0..<context.runs {
            pgbenchRates.append(try server.simpleUpdateRate(clients: Self.writers, seconds: max(1, Int(context.duration.rounded()))))
            oneHost.append(try await Self.measure(writers: [hostA], tasks: Self.writers, duration: context.duration, ids: &nextID))
            twoHosts.append(try await Self.measure(writers: [hostA, hostB], tasks: Self.writers / 2, duration: context.duration, ids: &nextID))
            sqlite.append(try await floor.measure(tasks: Self.writers, duration: context.duration))
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
        let events = try await onThread("pg-count") { try PostgresEventLog.head(on: setup) }
        let medianPGBench = Stats.median(pgbenchRates)
        func spread(_ values: [Double]) -> String { "runs \(values.map { Format.grouped($0) }.joined(separator: ", "))" }
        return [
            Measurement(
                benchmark: self.name,
                figure: "durable writes through one host, \(Self.writers) writers (row + event)",
                value: Stats.median(oneHost),
                unit: .perSecond,
                baseline: medianPGBench,
                baselineName: "pgbench simple-update, \(Self.writers) clients",
                note: "\(spread(oneHost)); \(events) events in one sequence after the run"
            ),
            Measurement(
                benchmark: self.name,
                figure: "durable writes through two hosts, \(Self.writers / 2) writers each",
                value: Stats.median(twoHosts),
                unit: .perSecond,
                baseline: medianPGBench,
                baselineName: "pgbench simple-update, \(Self.writers) clients",
                note: spread(twoHosts)
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
        ]
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
            let seq = try await writer.write(Self.create(base + Int64(index)))
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
