import Foundation
import GuildHarness
import GuildPostgres
import PostgresNIO

/// The `postgres` benchmark's fan-out: ``FanOut``'s group and writers (one group whose every member is a
/// subscriber on a connection of its own; 16 writers each adding and removing an extra user of its own, one call
/// in flight, so each change is one `events.event` to every subscriber) with the subscribers split over two real
/// guildd hosts on one fresh PostgreSQL database, half on host A and half on host B, and the writes through A.
/// Each host hands its subscribers the events its follower reads from the shared log: A's is woken by its own
/// commits, B's by the commits' LISTEN/NOTIFY. The baseline is the same group and load on a SQLite guildd of its
/// own, measured in the same run, each run one of each.
///
/// Per run: a burst (the writers as fast as they are answered) for notifications/s, in total and per host (its
/// notifications over first write → its last notification), then the writers paced to
/// ``pacedChangesPerSecond`` for `--duration` seconds for commit→delivery latency (receive time − the event's
/// `time`, which host A takes before the commit), whose percentiles per host are taken per run. Every burst
/// fails unless each subscriber got every change's event once, in order (``FanOut/Tally/everyConnectionGotTheSame(_:)``).
enum PostgresFanOut {
    /// Subscribers in all, half on each host: fan-out's 1,000. The bench holds them twice (the PostgreSQL hosts'
    /// and the SQLite daemon's) plus the writers, about 2,100 descriptors; the 2-core machine holds that.
    static let members = 1_000
    /// Changes per writer in a burst: 16 × 32 = 512 changes × 1,000 = 512,000 notifications (fan-out makes 64 each;
    /// half keeps the six bursts of `--runs 3` within about half a minute).
    static let changesPerWriter = 32
    /// The latency phase's load, the same on both engines: 100 changes/s = 100,000 notifications/s, which two
    /// PostgreSQL hosts deliver with room to spare on 2 cores, so the latency is delivery rather than a queue.
    static let pacedChangesPerSecond = 100.0
    /// The fresh database the two hosts share.
    static let database = "guild_fanout"

    /// One engine's runs: rates are notifications/s, latencies ms; `host…` are indexed by host, then run.
    struct Runs {
        var rates: [Double] = []
        /// The bursts' changes/s (what the writers got through).
        var writeRates: [Double] = []
        var hostRates: [[Double]]
        var hostP50: [[Double]]
        var hostP99: [[Double]]
        var cpu: [String] = []

        init(hosts: Int) {
            self.hostRates = Array(repeating: [], count: hosts)
            self.hostP50 = Array(repeating: [], count: hosts)
            self.hostP99 = Array(repeating: [], count: hosts)
        }

        /// A run's burst, and its paced phase's latencies (sorted, per host).
        mutating func record(_ burst: FanOut.BurstResult, pacedLatencies: [[Double]]) {
            self.rates.append(burst.rate)
            self.writeRates.append(Double(burst.changes) / burst.writeSeconds)
            self.cpu.append(burst.cpu)
            for host in pacedLatencies.indices {
                self.hostRates[host].append(burst.hostRates[host])
                self.hostP50[host].append(Stats.percentile(sorted: pacedLatencies[host], 50))
                self.hostP99[host].append(Stats.percentile(sorted: pacedLatencies[host], 99))
            }
        }
    }

    static func measure(_ context: BenchContext, server: PostgresServer, setup: BlockingConnection) async throws -> [Measurement] {
        try raiseFileLimit(atLeast: 2 * (Self.members + FanOut.writers) + 256)
        try await onThread("pg-fanout-database") { _ = try setup.execute("CREATE DATABASE \(unescaped: Self.database)") }
        let url = server.url(database: Self.database)
        return try await PostgresLog.withHosts(context, url: url, names: ["pg-fan-a", "pg-fan-b"]) { hosts in
            try await withOwnDaemon(context, name: "pg-fanout-sqlite") { sqlite in
                try await Self.measure(context, hosts: hosts, sqlite: sqlite)
            }
        }
    }

    private static func measure(_ context: BenchContext, hosts: [Daemon], sqlite: Daemon) async throws -> [Measurement] {
        context.progress("  fan-out: \(Self.members) subscribers, half on each of two PostgreSQL hosts, and all on a SQLite guildd")
        let started = monotonicNanos()
        let (a, b) = (hosts[0].socketPath, hosts[1].socketPath)
        let split = try await onThread("pg-fanout-setup") {
            try FanOut.prepare(a, subscriberHosts: [(a, Self.members / 2), (b, Self.members - Self.members / 2)])
        }
        defer { split.closeAll() }
        let sqlitePath = sqlite.socketPath
        let single = try await onThread("pg-fanout-setup") { try FanOut.prepare(sqlitePath) }
        defer { single.closeAll() }
        context.progress("  set up in \(Format.decimal(Double(monotonicNanos() - started) / 1e9, digits: 1)) s")

        // Warm-up bursts, then each run a burst and a paced phase on each engine.
        _ = try await FanOut.burst(split, changesPerWriter: 2, daemons: hosts)
        _ = try await FanOut.burst(single, changesPerWriter: 2, daemons: [sqlite])
        let changesPerWriter = context.quick ? 10 : Self.changesPerWriter
        let pacedPerWriter = max(Int(Self.pacedChangesPerSecond * context.duration) / FanOut.writers / 2 * 2, 2)
        let engines = [("PostgreSQL A+B", split, hosts), ("SQLite", single, [sqlite])]
        var results = engines.map { Runs(hosts: $0.1.hostCount) }
        for run in 1...context.runs {
            for (engine, (name, setup, daemons)) in engines.enumerated() {
                let burst = try await FanOut.burst(setup, changesPerWriter: changesPerWriter, daemons: daemons)
                let paced = try await FanOut.burst(
                    setup,
                    changesPerWriter: pacedPerWriter,
                    daemons: daemons,
                    changesPerSecond: Self.pacedChangesPerSecond
                )
                let sorted = paced.tally.hostLatencies.map { $0.sorted() }
                results[engine].record(burst, pacedLatencies: sorted)
                let perHost = zip(burst.hostRates, sorted).enumerated().map { host, figures in
                    "\(setup.hostCount == 1 ? "" : ["A", "B"][host] + " ")\(MeasurementUnit.perSecond.format(figures.0)), paced p50 "
                        + "\(MeasurementUnit.milliseconds.format(Stats.percentile(sorted: figures.1, 50))) p99 "
                        + MeasurementUnit.milliseconds.format(Stats.percentile(sorted: figures.1, 99))
                }
                context.progress(
                    "  run \(run) \(name): \(Format.grouped(Double(burst.tally.notifications))) notifications in "
                        + "\(Format.decimal(burst.window, digits: 2)) s = \(MeasurementUnit.perSecond.format(burst.rate)) "
                        + "(\(perHost.joined(separator: "; "))); writes \(Format.grouped(Double(burst.changes) / burst.writeSeconds)) changes/s, "
                        + "burst latency p50 "
                        + "\(MeasurementUnit.milliseconds.format(Stats.percentile(burst.tally.latencies, 50))); \(burst.cpu)"
                )
            }
        }
        return Self.measurements(postgres: results[0], sqlite: results[1], changesPerWriter: changesPerWriter, pacedPerWriter: pacedPerWriter)
    }

    private static func measurements(postgres: Runs, sqlite: Runs, changesPerWriter: Int, pacedPerWriter: Int) -> [Measurement] {
        let benchmark = PostgresLog().name
        func runs(_ values: [Double], _ unit: MeasurementUnit) -> String {
            "runs " + values.map { unit == .perSecond ? Format.grouped($0) : Format.decimal($0, digits: 1) }.joined(separator: ", ")
        }
        let half = Self.members / 2
        let changes = changesPerWriter * FanOut.writers
        let shape =
            "bursts of \(Format.grouped(Double(changes))) changes (\(FanOut.writers) writers × \(changesPerWriter), 1 in flight each) "
            + "× \(Format.grouped(Double(Self.members))) subscribers; every subscriber got every event once, in order"
        let paced =
            "paced \(Format.grouped(Self.pacedChangesPerSecond)) changes/s = "
            + "\(Format.grouped(Self.pacedChangesPerSecond * Double(Self.members))) notifications/s, "
            + "\(pacedPerWriter * FanOut.writers) changes a run"
        var figures = [
            Measurement(
                benchmark: benchmark,
                figure: "fan-out over two PostgreSQL hosts: notifications/s, \(Format.grouped(Double(Self.members))) subscribers (\(half) on each), "
                    + "writes through A",
                value: Stats.median(postgres.rates),
                unit: .perSecond,
                baseline: Stats.median(sqlite.rates),
                baselineName: "all on a SQLite guildd",
                target: .ratio(.atLeast, 0.6),
                note: "\(runs(postgres.rates, .perSecond)); \(shape); the writers made \(runs(postgres.writeRates, .perSecond)) changes/s "
                    + "(SQLite \(runs(sqlite.writeRates, .perSecond))); \(postgres.cpu.joined(separator: " / "))"
            )
        ]
        for (host, name) in ["host A (local)", "host B (PostgreSQL follower)"].enumerated() {
            figures.append(
                Measurement(
                    benchmark: benchmark,
                    figure: "fan-out: notifications/s delivered on \(name), \(half) subscribers",
                    value: Stats.median(postgres.hostRates[host]),
                    unit: .perSecond,
                    note: "\(runs(postgres.hostRates[host], .perSecond)); its notifications / first write → its last notification"
                )
            )
        }
        for (host, name) in ["host A", "host B"].enumerated() {
            for percentile in [50, 99] {
                let values = percentile == 50 ? postgres.hostP50[host] : postgres.hostP99[host]
                figures.append(
                    Measurement(
                        benchmark: benchmark,
                        figure: "fan-out: commit→delivery p\(percentile) on \(name), paced",
                        value: Stats.median(values),
                        unit: .milliseconds,
                        baseline: Stats.median(percentile == 50 ? sqlite.hostP50[0] : sqlite.hostP99[0]),
                        baselineName: "SQLite guildd, the same load",
                        note: "\(runs(values, .milliseconds)); \(paced); receive time − event time (taken on A before the commit)"
                    )
                )
            }
        }
        figures.append(
            Measurement(
                benchmark: benchmark,
                figure: "fan-out on a SQLite guildd (the baseline): notifications/s, all \(Format.grouped(Double(Self.members))) subscribers",
                value: Stats.median(sqlite.rates),
                unit: .perSecond,
                note: "\(runs(sqlite.rates, .perSecond)); paced p50 \(runs(sqlite.hostP50[0], .milliseconds)), p99 "
                    + "\(runs(sqlite.hostP99[0], .milliseconds)); \(sqlite.cpu.joined(separator: " / "))"
            )
        )
        return figures
    }
}
