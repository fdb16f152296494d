import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

extension ThingCommand {
    /// `thing history`: the states in a range, or with `--every` the range in intervals with aggregations.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Print a thing's states in a time range, in upload order (thing.stateHistory, every page), or aggregates per interval.",
            discussion: """
                With --every (500ms, 30s, 15m, 1h, 1d, 1w, or ms) the range is split into intervals (thing.stateHistory \
                grouped): one row per interval with its number of states and each --max, --min, --mean, --sum and \
                --count FIELD asked for (each repeatable; --count counts the states that have the field). Without \
                --from and --to, the last 24 intervals up to now, aligned on the interval. When stdout is a terminal, \
                a sparkline per column follows the table.

                Example: guildctl thing history --thing th.… --every 1h --max temp --mean temp
                """
        )

        @OptionGroup var thing: ThingOptions
        @Option(help: ArgumentHelp("Earliest timestamp, ms since the epoch.", valueName: "ms"))
        var from: Int64?
        @Option(help: ArgumentHelp("Latest timestamp, ms since the epoch.", valueName: "ms"))
        var to: Int64?
        @Option(help: ArgumentHelp("At most this many states (not with --every).", valueName: "n"))
        var limit: Int?
        @Option(help: ArgumentHelp("Aggregate per interval of this length: 500ms, 30s, 15m, 1h, 1d, 1w, or ms.", valueName: "duration"))
        var every: String?
        @Option(name: .customLong("max"), help: ArgumentHelp("With --every: a numeric field's largest value (repeatable).", valueName: "field"))
        var maxFields: [String] = []
        @Option(name: .customLong("min"), help: ArgumentHelp("With --every: a numeric field's smallest value (repeatable).", valueName: "field"))
        var minFields: [String] = []
        @Option(name: .customLong("mean"), help: ArgumentHelp("With --every: a numeric field's mean (repeatable).", valueName: "field"))
        var meanFields: [String] = []
        @Option(name: .customLong("sum"), help: ArgumentHelp("With --every: a numeric field's sum (repeatable).", valueName: "field"))
        var sumFields: [String] = []
        @Option(
            name: .customLong("count"),
            help: ArgumentHelp("With --every: how many states have the field (repeatable).", valueName: "field")
        )
        var countFields: [String] = []
        @OptionGroup var options: GlobalOptions

        /// The aggregations asked for, in the options' order, each once.
        var aggregations: [ThingMethods.StateAggregationSpec] {
            var specs: [ThingMethods.StateAggregationSpec] = []
            let asked: [(type: String, fields: [String])] = [
                ("COUNT", self.countFields), ("MAX", self.maxFields), ("MIN", self.minFields), ("MEAN", self.meanFields), ("SUM", self.sumFields),
            ]
            for (type, fields) in asked {
                for field in fields where !specs.contains(where: { $0.type == type && $0.field == field }) {
                    specs.append(.init(type: type, field: field))
                }
            }
            return specs
        }

        func validate() throws {
            guard let every = self.every else {
                if !self.aggregations.isEmpty { throw ValidationError("--max, --min, --mean, --sum and --count go with --every.") }
                return
            }
            if self.limit != nil { throw ValidationError("--limit does not go with --every.") }
            _ = try DurationArgument.milliseconds(every, option: "--every")
        }

        func run() async throws {
            if let every = self.every {
                try await self.runGrouped(interval: try DurationArgument.milliseconds(every, option: "--every"))
                return
            }
            let states = try await Runner.run(self.options) { client in
                var states: [ThingMethods.StateInfo] = []
                var key: String?
                repeat {
                    let page = try await client.thingStateHistory(self.thing.thingID, from: self.from, to: self.to, paginationKey: key)
                    states += page.results
                    key = page.nextPaginationKey
                } while key != nil && states.count < (self.limit ?? .max)
                return Array(states.prefix(self.limit ?? .max))
            }
            try Output.printResult(["results": states], json: self.options.json)
        }

        /// `--every`: the groups with their number of states and the aggregations asked for, as a table (and
        /// sparklines on a terminal), or as `{groupedResults}` with `--json`.
        private func runGrouped(interval: Int64) async throws {
            let range = try Self.range(from: self.from, to: self.to, interval: interval, now: Int64(Date().timeIntervalSince1970 * 1000))
            let asked = [ThingMethods.StateAggregationSpec(type: "COUNT", putAggregationInto: Self.statesColumn)] + self.aggregations
            let groups = try await Runner.run(self.options) { client in
                try await client.thingStateGroups(self.thing.thingID, from: range.from, to: range.to, interval: interval, aggregations: asked)
            }
            if self.options.json {
                try Output.printResult(["groupedResults": groups], json: true)
                return
            }
            let table = HistoryTable(groups: groups, aggregations: asked, interval: interval)
            print(table.lines().joined(separator: "\n"))
            if Terminal.stdoutIsTerminal, !groups.isEmpty {
                print("")
                print(table.sparklines(width: Output.terminalWidth).joined(separator: "\n"))
            }
        }

        /// The name the states' count is put into.
        static let statesColumn = "states"

        /// The range to group: `--from` and `--to` as given; without `--to`, the end of the interval now is in
        /// (intervals aligned on the epoch); without `--from`, 24 intervals before the end.
        static func range(from: Int64?, to: Int64?, interval: Int64, now: Int64) throws -> (from: Int64, to: Int64) {
            let end: Int64
            if let to {
                end = to
            } else {
                let (next, overflow) = (now / interval + 1).multipliedReportingOverflow(by: interval)
                end = overflow ? Int64.max : next - 1
            }
            guard let from else {
                let (span, overflow) = interval.multipliedReportingOverflow(by: 24)
                let (start, past) = end.subtractingReportingOverflow(span - 1)
                guard !overflow, !past else { throw ValidationError("--every is too long for 24 intervals before --to; give --from.") }
                return (start, end)
            }
            guard from <= end else { throw ValidationError("--from is after --to.") }
            return (from, end)
        }
    }
}
