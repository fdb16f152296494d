import Foundation
import GuildCore
import GuildHarness
import GuildJSON
import GuildProtocol
import GuildStore

/// Aggregated state history on the real socket, on a daemon of its own (issue 42, item 4): one thing with
/// 1,000,000 states over one day (`--history-states`; 100,000 with `--quick`), then `thing.stateHistory` grouped
/// into 24 one-hour groups with `MAX` and `MEAN` of a field, one query at a time as a dashboard asks: p50 and p99
/// against the target of 50 ms, and the same day shifted 30 s, whose group edges fall inside minutes (read from
/// the states rather than from the minute rollups).
///
/// The states are loaded by a fast path, not through the socket: the daemon makes the owner and the thing and is
/// stopped, the bench writes the states into its SQLite database through `GuildStore` (the records every upload
/// goes through, rollups included, in transactions of 20,000, without the events and triggers of uploads), and
/// the daemon is started again on it.
struct AggregatedHistory: Benchmark {
    let name = "history"
    let summary = "grouped thing.stateHistory over 1,000,000 states of one thing: 24 one-hour groups with MAX and MEAN, p50/p99"

    static let hour: Int64 = 3_600_000
    /// 2026-01-01T00:00:00Z, on an hour: the day the states cover.
    static let day: Int64 = 1_767_225_600_000
    static let batch = 20_000

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let count = context.historyStates ?? (context.quick ? 100_000 : 1_000_000)
        let queries = context.quick ? 200 : 1_000
        let arguments = ["--state-history-count", String(count + 1_000)]
        context.progress("  an owner and a thing")
        let thingID: String = try await withOwnDaemon(context, name: "history", extraArguments: arguments) { daemon in
            let socket = daemon.socketPath
            return try await onThread("history-setup") { try Self.onboard(socket) }
        }
        context.progress("  \(count) states over one day, straight into the stopped daemon's database")
        let loaded = try await Self.load(count, thingID: thingID, path: context.path("history.db"))
        context.progress("  \(queries) queries of 24 one-hour groups, MAX and MEAN, aligned on the hour and shifted 30 s")
        return try await withOwnDaemon(context, name: "history", extraArguments: arguments) { daemon in
            let socket = daemon.socketPath
            let aligned = try await onThread("history-aligned") {
                try Self.latencies(socket, thingID: thingID, from: Self.day, count: queries)
            }
            let shifted = try await onThread("history-shifted") {
                try Self.latencies(socket, thingID: thingID, from: Self.day + 30_000, count: queries)
            }
            func p(_ values: [Double], _ percentile: Double) -> Double { Stats.percentile(sorted: values, percentile) }
            let states = Format.grouped(Double(count))
            return [
                Measurement(
                    benchmark: self.name,
                    figure: "grouped history p50, \(states) states, 24 one-hour groups, MAX and MEAN",
                    value: p(aligned, 50),
                    unit: .milliseconds,
                    baseline: nil,
                    baselineName: nil,
                    target: nil,
                    note: "\(queries) queries one at a time, as the daemon's admin; the day starts on an hour"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "grouped history p99, \(states) states, 24 one-hour groups, MAX and MEAN",
                    value: p(aligned, 99),
                    unit: .milliseconds,
                    baseline: nil,
                    baselineName: nil,
                    target: .value(.below, 50),
                    note: "max \(MeasurementUnit.milliseconds.format(aligned.last ?? .nan))"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "grouped history p99, the day shifted 30 s (25 minutes read from the states)",
                    value: p(shifted, 99),
                    unit: .milliseconds,
                    baseline: nil,
                    baselineName: nil,
                    target: nil,
                    note: "p50 \(MeasurementUnit.milliseconds.format(p(shifted, 50))); about \(count / 1_440) states a minute"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "states loaded/s by the fast path (records and rollups, no socket)",
                    value: loaded,
                    unit: .perSecond,
                    baseline: nil,
                    baselineName: nil,
                    target: nil,
                    note: "transactions of \(Self.batch) in the bench's process"
                ),
                .rss(benchmark: self.name, after: "the history queries", try daemon.memory()),
            ]
        }
    }

    /// A pseudo user and a thing it owns; the thing's id (blocking).
    static func onboard(_ socket: String) throws -> String {
        let owner = try LineConnection(path: socket)
        defer { owner.close() }
        let user = try owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "history"))
        let onboarded = try owner.call(
            ThingMethods.Onboard.self,
            .init(vendorThingID: "history-1", thingPassword: "pw", owner: "user:" + user.user.userID)
        )
        return onboarded.thingID
    }

    /// State `index` of `count`, spread evenly over the day: a temperature with two decimals, a switch and a
    /// counter.
    static func state(_ index: Int, of count: Int) -> ThingState {
        let state: [String: JSONValue] = [
            "temp": .double(Double(index % 600) / 20 + 5), "power": .bool(index % 2 == 0), "n": .int(Int64(index)),
        ]
        return ThingState(state: state, timestamp: Self.day + Int64(index) * 86_400_000 / Int64(count))
    }

    /// Writes `count` states of the thing into the database at `path` (the daemon stopped); states per second.
    static func load(_ count: Int, thingID: String, path: String) async throws -> Double {
        let store = try SQLiteStore(configuration: .init(path: path))
        let uploaded = Int64(wallClockMilliseconds())
        let start = monotonicNanos()
        do {
            for first in stride(from: 0, to: count, by: Self.batch) {
                let last = min(first + Self.batch, count)
                try await store.write { tx in
                    for index in first..<last {
                        try tx.things.insertState(thingID: thingID, state: Self.state(index, of: count), uploaded: uploaded)
                    }
                    try tx.things.markThingHasState(id: thingID)
                }
            }
        } catch {
            try? store.close()
            throw error
        }
        let seconds = Double(monotonicNanos() - start) / 1e9
        try store.close()
        return Double(count) / seconds
    }

    /// The latencies of `count` grouped queries of the day starting at `from` (after 20 to warm up), in ms,
    /// sorted (blocking).
    static func latencies(_ socket: String, thingID: String, from: Int64, count: Int) throws -> [Double] {
        let connection = try LineConnection(path: socket, capacity: 256 * 1024)
        defer { connection.close() }
        let params = ThingMethods.StateHistory.Params(
            thingID: thingID,
            from: from,
            to: from + 24 * Self.hour - 1,
            grouped: true,
            interval: Self.hour,
            aggregations: [.init(type: "MAX", field: "temp"), .init(type: "MEAN", field: "temp")]
        )
        var samples: [Double] = []
        for index in 0..<(count + 20) {
            let start = monotonicNanos()
            let result = try connection.call(ThingMethods.StateHistory.self, params)
            let elapsed = Double(monotonicNanos() - start) / 1e6
            let groups = result.groupedResults ?? []
            guard groups.count == 24, groups.allSatisfy({ $0.aggregations?.count == 2 }) else {
                throw DaemonError("a grouped query answered \(groups.count) groups: \(groups.prefix(2))")
            }
            if index >= 20 { samples.append(elapsed) }
        }
        return samples.sorted()
    }
}
