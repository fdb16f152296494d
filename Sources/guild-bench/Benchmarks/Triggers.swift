import Foundation
import Glibc
import GuildHarness
import GuildJSON
import GuildProtocol

/// Triggers on the real socket, on a daemon of its own (issue 42):
/// - what evaluating triggers costs an upload: durable `thing.putState`/s from 16 things with 100 state triggers
///   each (a condition that stays false, so every trigger is evaluated and none fires) against 16 things with
///   none, in alternating runs on the same daemon;
/// - how punctual schedules are: 10,000 `NOTIFY` schedules (100 things with 100 each) all due at one instant,
///   as 10,000 `0 7 * * *` triggers are at 07:00, then 10,000 more due one after the other over a minute; each
///   `triggerFired` event's arrival at its owner's subscription minus its due time (both on this machine's wall
///   clock).
struct Triggers: Benchmark {
    let name = "triggers"
    let summary = "putState/s with 100 state triggers per thing vs none; 10,000 schedules due at once and over a minute: delay"

    static let writers = 16
    static let triggersPerThing = 100

    /// An owner's connection and id, and its things (each on its own connection, bound with its token).
    typealias Side = (owner: LineConnection, ownerID: String, things: [(id: String, connection: LineConnection)])

    func run(_ context: BenchContext) async throws -> [Measurement] {
        try raiseFileLimit(atLeast: 512)
        return try await withOwnDaemon(context, name: "triggers") { daemon in
            var measurements = try await self.evaluationCost(context, daemon)
            measurements += try await self.punctuality(context, daemon)
            measurements.append(.rss(benchmark: self.name, after: "the triggers run", try daemon.memory()))
            return measurements
        }
    }

    // MARK: - Evaluation cost

    /// One owner with `count` things, each connected with its own token; the things' ids and connections.
    static func things(_ socket: String, count: Int, prefix: String) throws -> Side {
        let owner = try LineConnection(path: socket, capacity: 256 * 1024)
        let user = try owner.call(UserMethods.RegisterPseudo.self, .init(displayName: prefix))
        var things: [(id: String, connection: LineConnection)] = []
        for index in 0..<count {
            let onboarded = try owner.call(
                ThingMethods.Onboard.self,
                .init(vendorThingID: "\(prefix)-\(index)", thingPassword: "pw", owner: "user:" + user.user.userID)
            )
            let thing = try LineConnection(path: socket, capacity: 64 * 1024)
            _ = try thing.call(SessionMethods.Authenticate.self, .init(accessToken: onboarded.accessToken))
            things.append((onboarded.thingID, thing))
        }
        return (owner, user.user.userID, things)
    }

    private func evaluationCost(_ context: BenchContext, _ daemon: Daemon) async throws -> [Measurement] {
        let socket = daemon.socketPath
        let perThing = Self.triggersPerThing
        context.progress("  \(Self.writers) things with \(perThing) state triggers each, \(Self.writers) with none")
        let (with, without) = try await onThread("triggers-setup") { () throws -> (Side, Side) in
            let with = try Self.things(socket, count: Self.writers, prefix: "with")
            let without = try Self.things(socket, count: Self.writers, prefix: "without")
            for thing in with.things {
                for index in 0..<perThing {
                    // Never true (the uploads' temperatures stay under 40), so each is evaluated and none fires.
                    let condition: JSONValue = ["type": "range", "field": "temperature", "lowerLimit": .int(Int64(1_000 + index))]
                    _ = try with.owner.call(
                        TriggerMethods.Create.self,
                        .init(
                            thingID: thing.id,
                            .init(
                                predicate: ["eventSource": "STATES", "condition": condition, "triggersWhen": "CONDITION_TRUE"],
                                triggersWhat: "NOTIFY"
                            )
                        )
                    )
                }
            }
            return (with, without)
        }
        defer {
            for side in [with, without] {
                side.owner.close()
                for thing in side.things { thing.connection.close() }
            }
        }
        func rate(_ side: Side, run: Int) async throws -> Double {
            let ids = side.things.map(\.id)
            let connections = side.things.map(\.connection)
            let duration = context.duration
            return try await onThread("triggers-states") {
                try PollingWriters.run(connections, duration: duration, counter: run * 10_000_000) { index, counter in
                    let request =
                        #"{"jsonrpc":"2.0","id":\#(counter),"method":"thing.putState","params":{"thingID":"\#(ids[index])","state":{"power":true,"temperature":\#(counter % 40),"n":\#(counter)}}}"#
                    return (Array(request.utf8) + [0x0A], Array(#""timestamp""#.utf8))
                }
            }
        }
        var withRates: [Double] = []
        var withoutRates: [Double] = []
        for run in 0..<context.runs {
            withoutRates.append(try await rate(without, run: 2 * run))
            withRates.append(try await rate(with, run: 2 * run + 1))
        }
        return [
            Measurement(
                benchmark: self.name,
                figure: "durable thing.putState/s, \(Self.writers) things with \(perThing) state triggers each",
                value: Stats.median(withRates),
                unit: .perSecond,
                baseline: Stats.median(withoutRates),
                baselineName: "the same uploads, \(Self.writers) things with no trigger",
                target: .ratio(.atLeast, 0.8),
                note: "every trigger evaluated, none fires; alternating runs; with: " + Format.spread(withRates, unit: .perSecond)
                    + "; without: " + Format.spread(withoutRates, unit: .perSecond)
            )
        ]
    }

    // MARK: - Punctuality

    private func punctuality(_ context: BenchContext, _ daemon: Daemon) async throws -> [Measurement] {
        let socket = daemon.socketPath
        let owners = context.quick ? 10 : 100
        let total = owners * Self.triggersPerThing
        // Long enough to make every trigger first on a slow machine; the run waits for it.
        let lead = context.quick ? 10_000.0 : 40_000.0
        context.progress("  \(total) NOTIFY schedules on \(owners) things, all due at one instant \(Int(lead / 1000)) s ahead")
        let instant = try await onThread("triggers-instant") {
            try Self.scheduleRound(socket, owners: owners, prefix: "instant", lead: lead) { _ in 0 }
        }
        // The engine's floor for the same firings, copied from what the daemon just stored (``ScheduleFloor``).
        context.progress("  the same \(total) firings' rows in plain SQLite, set-based, three times")
        let floors = try await onThread("triggers-floor") { () throws -> [Double] in
            try (0..<3).map { run in
                let floor = try ScheduleFloor(
                    path: context.path("schedule-floor-\(run).db"),
                    daemonDatabase: context.path("triggers.db"),
                    things: owners,
                    perThing: Self.triggersPerThing
                )
                defer { try? floor.close() }
                let (milliseconds, fired) = try floor.fireAll()
                guard fired == total else { throw DaemonError("schedule floor fired \(fired) of \(total)") }
                return milliseconds
            }
        }
        let floor = Stats.median(floors)
        context.progress("  \(total) more, due one after the other over a minute")
        let spread = try await onThread("triggers-spread") {
            try Self.scheduleRound(socket, owners: owners, prefix: "spread", lead: lead) { index in Int64(index * 60_000 / total) }
        }
        func p(_ values: [Double], _ percentile: Double) -> Double { Stats.percentile(sorted: values, percentile) }
        return [
            Measurement(
                benchmark: self.name,
                figure: "schedule due → subscriber p50, \(total) due at one instant",
                value: p(instant, 50),
                unit: .milliseconds,
                baseline: nil,
                baselineName: nil,
                target: nil,
                note: "triggerFired arrival minus dueAt, wall clock; \(instant.count) events to \(owners) subscribers"
            ),
            Measurement(
                benchmark: self.name,
                figure: "schedule due → subscriber p99, \(total) due at one instant",
                value: p(instant, 99),
                unit: .milliseconds,
                baseline: floor,
                baselineName: "the engine's floor: the same firings' rows durable in plain SQLite, set-based",
                target: .value(.below, 50),
                note: "as 10,000 `0 7 * * *` schedules are at 07:00; max \(MeasurementUnit.milliseconds.format(instant.last ?? .nan))"
            ),
            Measurement(
                benchmark: self.name,
                figure: "engine floor: \(total) NOTIFY firings' rows durable in plain SQLite",
                value: floor,
                unit: .milliseconds,
                baseline: nil,
                baselineName: nil,
                target: nil,
                note: "median of 3: " + Format.spread(floors, unit: .milliseconds)
                    + "; the daemon's tables, 500 firings a transaction, one statement per step and 100 rows, no socket or fan-out"
            ),
            Measurement(
                benchmark: self.name,
                figure: "schedule due → subscriber p50 / p99, \(total) due over one minute",
                value: p(spread, 99),
                unit: .milliseconds,
                baseline: nil,
                baselineName: nil,
                target: .value(.below, 50),
                note: "p99 shown; p50 \(MeasurementUnit.milliseconds.format(p(spread, 50))), max "
                    + MeasurementUnit.milliseconds.format(spread.last ?? .nan)
            ),
        ]
    }

    /// `owners` owners with a thing and a `triggerFired` subscription each, `triggersPerThing` `NOTIFY` single
    /// times per thing due `lead` ms from now plus `offset(index)`; returns each event's arrival minus its due
    /// time, sorted (blocking).
    static func scheduleRound(
        _ socket: String,
        owners: Int,
        prefix: String,
        lead: Double,
        offset: (Int) -> Int64
    ) throws -> [Double] {
        let total = owners * Self.triggersPerThing
        var pairs: [(owner: LineConnection, thingID: String)] = []
        defer { for pair in pairs { pair.owner.close() } }
        for index in 0..<owners {
            let owner = try LineConnection(path: socket, capacity: 1024 * 1024)
            let user = try owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "\(prefix)\(index)"))
            let onboarded = try owner.call(
                ThingMethods.Onboard.self,
                .init(vendorThingID: "\(prefix)-\(index)", thingPassword: "pw", owner: "user:" + user.user.userID)
            )
            _ = try owner.call(EventMethods.Subscribe.self, .init(kinds: ["triggerFired"]))
            pairs.append((owner, onboarded.thingID))
        }
        let base = Int64(wallClockMilliseconds() + lead)
        var index = 0
        for pair in pairs {
            for _ in 0..<Self.triggersPerThing {
                let due = base + offset(index)
                index += 1
                _ = try pair.owner.call(
                    TriggerMethods.Create.self,
                    .init(thingID: pair.thingID, .init(predicate: ["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(due)], triggersWhat: "NOTIFY"))
                )
            }
        }
        guard wallClockMilliseconds() < Double(base) else {
            throw DaemonError("making \(total) triggers took longer than the \(Int(lead)) ms lead; nothing measured")
        }
        let connections = pairs.map(\.owner)
        for connection in connections { connection.setNonBlocking() }
        var descriptors = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let dueKey = Array(#""dueAt":"#.utf8)
        var arrivals: [Double] = []
        arrivals.reserveCapacity(total)
        while arrivals.count < total {
            let ready = poll(&descriptors, nfds_t(descriptors.count), 120_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw DaemonError("\(arrivals.count) of \(total) triggerFired events; none for two minutes") }
            let now = wallClockMilliseconds()
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let open = try connections[index].drain { line in
                    guard let dueAt = dueKey.withUnsafeBytes({ RawRPC.integer(after: $0, in: line)?.value }) else { return }
                    arrivals.append(now - Double(dueAt))
                }
                guard open else { throw DaemonError("guildd closed a subscriber's connection") }
            }
        }
        return arrivals.sorted()
    }
}
