import Foundation
import GRDB
import GuildClient
import GuildHarness
import GuildProtocol

/// Durable writes: 16 registered users, each on its own connection with its own session, looping
/// `user.update` (one call in flight per connection), against SQLite via GRDB on the same disk: WAL,
/// synchronous=FULL, one transaction per UPDATE, sequential.
///
/// The target row drives the 16 connections from one thread that polls them with plain POSIX calls (as an
/// independent load generator would), so that the bench's own client costs as little of the two cores as it
/// can; the same 16 users through GuildClient are reported beside it, and 64 raw clients as a diagnostic.
///
/// Writes per commit have a ceiling set by the load: a commit is durable before the next one starts, and a
/// client answered by one commit cannot have its next write in the commit that starts right after it, so with
/// one write in flight per client at most half the clients share a commit (8 of 16) while commits run back
/// to back. The 64-client row shows how far the daemon goes with more writers.
///
/// The floor is measured too: the mean duration of guildd's commits under the 16-client load (its transaction
/// and the WAL's fsync, from the `guild_store_commit_duration_seconds` histogram in `system.metrics`), and what
/// the 16 clients could reach if every one of them were in every commit of that duration.
struct DurableWrites: Benchmark {
    let name = "durable-writes"
    let summary = "user.update/s from 16 bound clients vs sequential SQLite WAL+FULL transactions"

    static let writers = 16
    /// The writers of the diagnostic row (the first 16 are the target row's).
    static let manyWriters = 64

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let daemon = try await context.sharedDaemon()
        let baseline = try SQLiteBaseline(path: context.path("baseline.sqlite"), rows: Self.writers)

        context.progress("  registering \(Self.writers) users")
        var clients: [GuildClient] = []
        var raw: [LineConnection] = []
        do {
            let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
            for index in 0..<Self.manyWriters {
                let client = try await GuildClient.connect(path: daemon.socketPath)
                clients.append(client)
                let auth = try await client.call(
                    UserMethods.Register.self,
                    .init(username: "bench-\(suffix)-\(index)", password: "bench-password", displayName: "n0")
                )
                let connection = try LineConnection(path: daemon.socketPath)
                _ = try connection.call(SessionMethods.Authenticate.self, .init(accessToken: auth.accessToken))
                raw.append(connection)
            }
            // Only fsynced commits are durable writes: a daemon whose write connection runs NORMAL (every guildd
            // before 2026-11-27, when GRDB's WAL set-up reset it) would be measured against the wrong floor.
            let synchronous = try await clients[0].call(SystemMethods.Status.self).database?.synchronous
            if let synchronous, synchronous != "FULL", synchronous != "EXTRA" {
                throw DaemonError("guildd's write connection runs synchronous=\(synchronous): its writes are not durable")
            }
            let connections = Array(raw.prefix(Self.writers))
            // The GuildClient row's clients: the target row's 16 users (the other connections stay idle).
            let guildClients = Array(clients.prefix(Self.writers))

            // Warm-up every side.
            let warmup = min(0.5, context.duration)
            _ = try await Self.measureRaw(connections, duration: warmup, run: 0)
            _ = try await Self.measureGuild(clients: guildClients, duration: warmup, run: 0)
            _ = try await onThread("sqlite-baseline") { try baseline.measure(duration: warmup) }

            var rawRates: [Double] = []
            var guildRates: [Double] = []
            var sqliteRates: [Double] = []
            var writesPerCommit: [Double] = []
            var manyRates: [Double] = []
            var manyWritesPerCommit: [Double] = []
            var manyCPU = ""
            var commitSeconds: [Double] = []
            for run in 1...context.runs {
                let meter = CPUMeter(daemonPID: daemon.pid)
                let before = try await clients[0].call(SystemMethods.Status.self).writes
                let commitsBefore = Self.commitDurations(try await clients[0].call(SystemMethods.Metrics.self))
                rawRates.append(try await Self.measureRaw(connections, duration: context.duration, run: run))
                let cpu = meter.summary()
                let after = try await clients[0].call(SystemMethods.Status.self).writes
                let commitsAfter = Self.commitDurations(try await clients[0].call(SystemMethods.Metrics.self))
                if let perCommit = Self.writesPerCommit(before, after) { writesPerCommit.append(perCommit) }
                if let before = commitsBefore, let after = commitsAfter, after.count > before.count {
                    commitSeconds.append((after.sum - before.sum) / Double(after.count - before.count))
                }
                let manyMeter = CPUMeter(daemonPID: daemon.pid)
                // Run numbers past 100 give the 64 writers display names no other row's run uses.
                manyRates.append(try await Self.measureRaw(raw, duration: context.duration, run: run + 100))
                manyCPU = manyMeter.summary()
                if let perCommit = Self.writesPerCommit(after, try await clients[0].call(SystemMethods.Status.self).writes) {
                    manyWritesPerCommit.append(perCommit)
                }
                guildRates.append(try await Self.measureGuild(clients: guildClients, duration: context.duration, run: run))
                let duration = context.duration
                sqliteRates.append(try await onThread("sqlite-baseline") { try baseline.measure(duration: duration) })
                context.progress(
                    "  run \(run): raw clients \(MeasurementUnit.perSecond.format(rawRates.last!)) (\(cpu)), "
                        + "64 raw clients \(MeasurementUnit.perSecond.format(manyRates.last!)), "
                        + "GuildClient \(MeasurementUnit.perSecond.format(guildRates.last!)), "
                        + "sqlite \(MeasurementUnit.perSecond.format(sqliteRates.last!))"
                )
            }
            for client in clients { await client.close() }
            for connection in raw { connection.close() }
            try baseline.close()
            let sqliteRate = Stats.median(sqliteRates)
            let ceiling: [Measurement] =
                commitSeconds.isEmpty
                ? []
                : [
                    Measurement(
                        benchmark: self.name,
                        figure: "ceiling: all \(Self.writers) writers in every commit",
                        value: Double(Self.writers) / Stats.median(commitSeconds),
                        unit: .perSecond,
                        baseline: sqliteRate,
                        baselineName: "SQLite WAL+FULL, 1 txn/UPDATE",
                        target: nil,
                        note: "diagnostic: \(Self.writers) ÷ guildd's mean commit (its transaction and the WAL fsync) under the "
                            + "\(Self.writers)-client load, \(Format.decimal(Stats.median(commitSeconds) * 1e6, digits: 0)) µs (median of "
                            + "the runs' means), against SQLite's \(Format.decimal(1e6 / sqliteRate, digits: 0)) µs per transaction; a "
                            + "client answered by one commit cannot be in the next, so the load gives at most ~\(Self.writers / 2)"
                    )
                ]
            return [
                Measurement(
                    benchmark: self.name,
                    figure: "user.update, 16 raw clients",
                    value: Stats.median(rawRates),
                    unit: .perSecond,
                    baseline: Stats.median(sqliteRates),
                    baselineName: "SQLite WAL+FULL, 1 txn/UPDATE",
                    target: .ratio(.atLeast, 10),
                    note: "16 connections driven by one polling thread; "
                        + (synchronous.map { "guildd's writer synchronous=\($0); " } ?? "")
                        + (writesPerCommit.isEmpty ? "" : String(format: "%.1f writes per commit (fsync); ", Stats.median(writesPerCommit)))
                        + "guild: " + Format.spread(rawRates, unit: .perSecond)
                        + "; sqlite: " + Format.spread(sqliteRates, unit: .perSecond)
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "user.update, 16 GuildClient connections",
                    value: Stats.median(guildRates),
                    unit: .perSecond,
                    baseline: Stats.median(sqliteRates),
                    baselineName: "SQLite WAL+FULL, 1 txn/UPDATE",
                    target: nil,
                    note: "callers on the clients' event loops; " + Format.spread(guildRates, unit: .perSecond)
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "user.update, 64 raw clients",
                    value: Stats.median(manyRates),
                    unit: .perSecond,
                    baseline: Stats.median(sqliteRates),
                    baselineName: "SQLite WAL+FULL, 1 txn/UPDATE",
                    target: nil,
                    note: "diagnostic: 64 users, one write in flight each, one polling thread; "
                        + (manyWritesPerCommit.isEmpty
                            ? "" : String(format: "%.1f writes per commit (fsync); ", Stats.median(manyWritesPerCommit)))
                        + Format.spread(manyRates, unit: .perSecond) + "; " + manyCPU
                ),
            ] + ceiling
        } catch {
            for client in clients { await client.close() }
            for connection in raw { connection.close() }
            try? baseline.close()
            throw error
        }
    }

    /// The total duration and count of guildd's commits so far, from the `guild_store_commit_duration_seconds`
    /// histogram in `system.metrics` text; nil when the daemon does not export it.
    static func commitDurations(_ metrics: String) -> (sum: Double, count: Int)? {
        let sums = MetricsText.sums(metrics)
        guard let sum = sums["guild_store_commit_duration_seconds_sum"],
            let count = sums["guild_store_commit_duration_seconds_count"]
        else { return nil }
        return (sum, Int(count))
    }

    /// Operations per commit between two `system.status` readings; nil without a commit between them.
    static func writesPerCommit(_ before: SystemStatus.Writes?, _ after: SystemStatus.Writes?) -> Double? {
        guard let before, let after, after.commits > before.commits else { return nil }
        return Double(after.operations - before.operations) / Double(after.commits - before.commits)
    }

    /// Updates per second from the raw connections, driven by one thread that polls them all (each with one
    /// `user.update {displayName: "n<counter>"}` in flight, sending the next as soon as the reply is in) until
    /// the deadline; every reply is checked.
    static func measureRaw(_ connections: [LineConnection], duration: Double, run: Int) async throws -> Double {
        try await onThread("raw-writers") {
            try Self.pollUpdates(connections, duration: duration, counter: run * 10_000_000)
        }
    }

    static func pollUpdates(_ connections: [LineConnection], duration: Double, counter start: Int) throws -> Double {
        try PollingWriters.run(connections, duration: duration, counter: start) { _, counter in
            let name = "n\(counter)"
            let request = #"{"jsonrpc":"2.0","id":\#(counter),"method":"user.update","params":{"displayName":"\#(name)"}}"#
            return (Array(request.utf8) + [0x0A], Array(#""displayName":"\#(name)""#.utf8))
        }
    }

    /// Updates per second: every client loops `user.update {displayName: "n<counter>"}` until the deadline,
    /// from an actor on its connection's event loop (GuildClient's documented low-latency way to call), so
    /// the bench's own thread hops do not eat the two cores the daemon needs.
    static func measureGuild(clients: [GuildClient], duration: Double, run: Int) async throws -> Double {
        let start = monotonicNanos()
        let deadline = start + UInt64(duration * 1e9)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for client in clients {
                group.addTask {
                    try await PinnedUpdater(client: client).updates(until: deadline, counter: run * 10_000_000 + 5_000_000)
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / (Double(monotonicNanos() - start) / 1e9)
    }
}

/// Loops `user.update` on one connection from that connection's event loop.
actor PinnedUpdater {
    let client: GuildClient

    init(client: GuildClient) {
        self.client = client
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { self.client.executor.asUnownedSerialExecutor() }

    /// Sequential updates until `deadline`; returns how many were acknowledged.
    func updates(until deadline: UInt64, counter start: Int) async throws -> Int {
        var count = 0
        var counter = start
        while monotonicNanos() < deadline {
            counter += 1
            let name = "n\(counter)"
            let profile = try await self.client.call(UserMethods.Update.self, .init(displayName: name))
            guard profile.displayName == name else {
                throw DaemonError("user.update returned displayName \(profile.displayName ?? "nil"), expected \(name)")
            }
            count += 1
        }
        return count
    }
}

/// SQLite through GRDB, configured like the daemon's store: WAL, synchronous=FULL.
final class SQLiteBaseline: Sendable {
    let queue: DatabaseQueue
    let rows: Int

    init(path: String, rows: Int) throws {
        var config = Configuration()
        config.label = "baseline"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        self.queue = try DatabaseQueue(path: path, configuration: config)
        self.rows = rows
        try self.queue.writeWithoutTransaction { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else { throw DaemonError("SQLite baseline: journal_mode is \(mode ?? "nil"), not wal") }
            let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous")
            guard synchronous == 2 else { throw DaemonError("SQLite baseline: synchronous is \(synchronous ?? -1), not FULL (2)") }
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            for id in 1...rows {
                try db.execute(sql: "INSERT OR REPLACE INTO item (id, name) VALUES (?, ?)", arguments: [id, "n0"])
            }
        }
    }

    /// Sequential single-UPDATE transactions per second for `duration` seconds. Blocking; run it on a thread.
    func measure(duration: Double) throws -> Double {
        let start = monotonicNanos()
        let deadline = start + UInt64(duration * 1e9)
        var count = 0
        while monotonicNanos() < deadline {
            count += 1
            try self.update(count)
        }
        return Double(count) / (Double(monotonicNanos() - start) / 1e9)
    }

    /// One transaction updating one row (the `count`-th in turn). Blocking.
    func update(_ count: Int) throws {
        try self.queue.write { db in
            try db.execute(sql: "UPDATE item SET name = ? WHERE id = ?", arguments: ["n\(count)", count % self.rows + 1])
        }
    }

    func close() throws {
        try self.queue.close()
    }
}
