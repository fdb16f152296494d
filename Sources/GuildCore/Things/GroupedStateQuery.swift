import GuildJSON

/// A grouped state history, Thing-IF's `grouped: true` (data-things-messages.md §4.2): a time range split into
/// intervals (``StateGrouping``), each group answered with the values of ``aggregations`` or, when there is
/// none, with its states.
public struct GroupedStateQuery: Sendable, Hashable {
    public var grouping: StateGrouping
    /// At most ``StateAggregation/maximum``, each put into its own name.
    public var aggregations: [StateAggregation]

    /// The most states a grouped query without aggregations answers with, over all its groups.
    public static let maximumStates = 1_000

    /// A query; more than ``StateAggregation/maximum`` aggregations, or two put into the same name, are
    /// `invalidInput` naming `aggregations`.
    public init(grouping: StateGrouping, aggregations: [StateAggregation]) throws(GuildError) {
        guard aggregations.count <= StateAggregation.maximum else {
            throw .invalidInput("at most \(StateAggregation.maximum) aggregations", field: "aggregations")
        }
        var names = Set<String>()
        for aggregation in aggregations where !names.insert(aggregation.name).inserted {
            throw .invalidInput("two aggregations are put into \(aggregation.name)", field: "aggregations")
        }
        self.grouping = grouping
        self.aggregations = aggregations
    }

    /// The grouped query a `thing.stateHistory` call makes, nil for the paged history (no `grouped`, `interval`
    /// or `aggregations`). `interval` and `aggregations` need `grouped: true`, which needs `from` and `to` and
    /// has no pages (`limit`, `paginationKey`); each refusal is `invalidInput` naming the param.
    public static func parse(
        grouped: Bool?,
        from: Int64?,
        to: Int64?,
        interval: Int64?,
        aggregations: [JSONValue]?,
        limit: Int?,
        paginationKey: String?
    ) throws(GuildError) -> GroupedStateQuery? {
        guard grouped == true else {
            if interval != nil { throw .invalidInput("interval goes with grouped: true", field: "interval") }
            if aggregations != nil { throw .invalidInput("aggregations go with grouped: true", field: "aggregations") }
            return nil
        }
        if limit != nil { throw .invalidInput("a grouped query has no pages: no limit", field: "limit") }
        if paginationKey != nil { throw .invalidInput("a grouped query has no pages", field: "paginationKey") }
        let grouping = try StateGrouping(from: from, to: to, interval: interval)
        var parsed: [StateAggregation] = []
        for aggregation in aggregations ?? [] {
            parsed.append(try StateAggregation(json: aggregation))
        }
        return try GroupedStateQuery(grouping: grouping, aggregations: parsed)
    }

    /// The groups of a thing's history, read through `records`: each with the aggregations' values, or its
    /// states (by timestamp) when there is no aggregation; more than ``maximumStates`` states then are
    /// `invalidInput` naming `to`. The totals come from the minute rollups when `rollups` (they are kept), else
    /// from the states.
    public func groups(thingID: String, in records: any ThingRecords, rollups: Bool = true) throws -> [StateHistoryGroup] {
        var groups = (0..<self.grouping.count).map { index -> StateHistoryGroup in
            let range = self.grouping.range(index)
            return StateHistoryGroup(from: range.from, to: range.to)
        }
        if self.aggregations.isEmpty {
            // With rollups, their counts say whether the range is small enough before any state is read; without,
            // the states are read once, counted and grouped (counting them from their totals first read them twice).
            if rollups {
                let totals = try self.grouping.totals(thingID: thingID, fields: [], in: records, rollups: true)
                let count = totals.reduce(Int64(0)) { sum, group in sum + (group[StateRollup.statesField]?.count ?? 0) }
                try Self.checkStates(count)
                guard count > 0 else { return groups }
            }
            let states = try records.statesByTime(thingID: thingID, from: self.grouping.from, to: self.grouping.to)
            try Self.checkStates(Int64(states.count))
            for state in states {
                guard let index = self.grouping.group(of: state.timestamp) else { continue }
                groups[index].states.append(state)
            }
            return groups
        }
        let fields = Set(self.aggregations.compactMap(\.field))
        let totals = try self.grouping.totals(thingID: thingID, fields: fields, in: records, rollups: rollups)
        for (index, group) in totals.enumerated() {
            groups[index].values = self.aggregations.map { aggregation in
                aggregation.value(group[aggregation.field ?? StateRollup.statesField] ?? FieldTotals())
            }
        }
        return groups
    }

    /// More than ``maximumStates`` states are `invalidInput` naming `to`.
    private static func checkStates(_ count: Int64) throws(GuildError) {
        guard count <= Self.maximumStates else {
            throw .invalidInput(
                "the range holds \(count) states, more than the \(Self.maximumStates) a grouped query answers with: narrow it, or ask for aggregations",
                field: "to"
            )
        }
    }
}
