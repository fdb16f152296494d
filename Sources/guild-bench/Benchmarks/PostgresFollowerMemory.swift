import Foundation
import GuildHarness
import GuildPostgres
import GuildProtocol

/// The `postgres` benchmark's lifetime check of a host following the shared log: a guildd on PostgreSQL reads
/// every event any host commits, for as long as it runs, so what it keeps per event read must be nothing. Writes
/// go through the store (``PostgresLog/create(_:)``, 16 writers) while two hosts follow; each host's VmRSS is read
/// once it has followed a warm-up, and again once it has followed the measured events (its `system.status` event
/// cursor at the log's head: the witness, not a pause). Until `ConnectionWaits`, every read of a host's follower
/// kept its rows until the connection closed: about 1.2 KB per event (24 MB per 20,000 `object.create`).
enum PostgresFollowerMemory {
    /// Events before the first reading: buffers and caches reach their working size.
    static let warmUp = 10_000
    /// Events between the readings (a tenth with `--quick`).
    static let events = 50_000
    /// The most VmRSS a host may grow by between the readings, as `guild-bench churn` allows over its million.
    static let growthMiB = 1.0

    static func measure(
        _ context: BenchContext,
        hosts: [Daemon],
        writer: PostgresWriter,
        ids: inout PostgresLog.Counter
    ) async throws -> [Measurement] {
        let events = context.quick ? Self.events / 10 : Self.events
        context.progress("  following the log: \(Format.grouped(Double(events))) events through the store, read by both hosts")
        let warmHead = try await Self.write(Self.warmUp, writer: writer, ids: &ids)
        let warm = try await Self.caughtUp(hosts, head: warmHead)
        let head = try await Self.write(events, writer: writer, ids: &ids)
        let after = try await Self.caughtUp(hosts, head: head)
        return zip(warm, after).enumerated().map { host, readings in
            let growth = readings.1.rssMiB - readings.0.rssMiB
            return Measurement(
                benchmark: PostgresLog().name,
                figure: "a host following the log: VmRSS growth over \(Format.grouped(Double(events))) events, host \(["A", "B"][host])",
                value: growth,
                unit: .mebibytes,
                target: .value(.below, Self.growthMiB),
                note: "VmRSS \(Format.decimal(readings.0.rssMiB, digits: 1)) MiB after \(Format.grouped(Double(Self.warmUp))) events, "
                    + "\(Format.decimal(readings.1.rssMiB, digits: 1)) MiB after \(Format.grouped(Double(events))) more"
            )
        }
    }

    /// Commits `count` events through `writer`, 16 writers at once; returns the log's head after them (what a
    /// write's `append` returns names its event inside its transaction only).
    private static func write(_ count: Int, writer: PostgresWriter, ids: inout PostgresLog.Counter) async throws -> Int64 {
        let writers = PostgresLog.writers
        let base = ids.take(Int64(count))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<writers {
                group.addTask {
                    for index in stride(from: task, to: count, by: writers) {
                        _ = try await writer.write(PostgresLog.create(base + Int64(index)))
                    }
                }
            }
            try await group.waitForAll()
        }
        return try await writer.write { context in try PostgresEventLog.head(on: context.connection) }
    }

    /// Each host's memory once its follower has delivered the log up to `head` (every write committed).
    private static func caughtUp(_ hosts: [Daemon], head: Int64) async throws -> [MemoryStatus] {
        let hosts = hosts.map { (socket: $0.socketPath, pid: $0.pid, name: $0.name) }
        return try await onThread("pg-follower-memory") {
            try hosts.map { host in
                let connection = try LineConnection(path: host.socket)
                defer { connection.close() }
                let deadline = monotonicNanos() + 60_000_000_000
                while try connection.call(SystemMethods.Status.self, .init()).database?.eventCursor ?? 0 < head {
                    guard monotonicNanos() < deadline else { throw DaemonError("\(host.name) did not follow the log to \(head) within 60 s") }
                    usleep(10_000)
                }
                return try MemoryStatus.read(pid: host.pid)
            }
        }
    }
}
