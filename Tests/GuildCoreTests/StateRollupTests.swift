import GuildJSON
import Testing

@testable import GuildCore

/// The minute rollups' arithmetic, the plan of what a grouped query reads from them and from the states, and the
/// wire's grouped query as the core reads it; storage is in the conformance tests.
struct StateRollupTests {
    @Test func minutesRoundDownAlsoBefore1970() {
        #expect(StateRollup.minute(of: 0) == 0)
        #expect(StateRollup.minute(of: 59_999) == 0)
        #expect(StateRollup.minute(of: 60_000) == 1)
        #expect(StateRollup.minute(of: -1) == -1)
        #expect(StateRollup.minute(of: -60_000) == -1)
        #expect(StateRollup.minute(of: -60_001) == -2)
        #expect(StateRollup.offset(of: -1) == 59_999)
        #expect(StateRollup.offset(of: 61_000) == 1_000)
        #expect(StateRollup.timestamps(ofMinute: -1) == -60_000 ... -1)
        #expect(StateRollup.minute(of: .min) < 0 && StateRollup.minute(of: .max) > 0)
        #expect(StateRollup.timestamps(ofMinute: StateRollup.minute(of: .max)).upperBound == .max)
    }

    @Test func aStateAddsACountAndEachTopLevelField() {
        let totals = StateRollup.totals(of: ["t": 2.5, "on": true, "": 1, "a\u{0}b": 1, "n": .null])
        #expect(Set(totals.keys) == ["", "t", "on", "n"])
        #expect(totals[""] == FieldTotals(count: 1))
        #expect(totals["t"] == FieldTotals(count: 1, numbers: 1, decimals: 1, sum: 2.5, minimum: 2.5, maximum: 2.5))
        #expect(totals["on"] == FieldTotals(count: 1))
        #expect(totals["n"] == FieldTotals(count: 1))
    }

    @Test func removalsAreSummedPerMinuteAndField() {
        let states = [
            ThingState(state: ["t": 1], timestamp: 1_000),
            ThingState(state: ["t": 5], timestamp: 2_000),
            ThingState(state: ["t": 7, "x": "y"], timestamp: 61_000),
        ]
        let removals = StateRollup.removals(of: states)
        #expect(removals[.init(minute: 0, field: "")] == FieldTotals(count: 2))
        #expect(removals[.init(minute: 0, field: "t")] == FieldTotals(count: 2, numbers: 2, sum: 6, minimum: 1, maximum: 5))
        #expect(removals[.init(minute: 1, field: "x")] == FieldTotals(count: 1))
        #expect(removals.count == 5)
    }

    @Test func aRowIsRecountedWhenItsMinimumOrMaximumWent() {
        let left = FieldTotals(count: 3, numbers: 3, sum: 12, minimum: 2, maximum: 6)
        #expect(StateRollup.needsRecount(remaining: left, removed: FieldTotals(count: 1, numbers: 1, sum: 2, minimum: 2, maximum: 2)))
        #expect(StateRollup.needsRecount(remaining: left, removed: FieldTotals(count: 1, numbers: 1, sum: 6, minimum: 6, maximum: 6)))
        #expect(!StateRollup.needsRecount(remaining: left, removed: FieldTotals(count: 1, numbers: 1, sum: 4, minimum: 4, maximum: 4)))
        #expect(!StateRollup.needsRecount(remaining: left, removed: FieldTotals(count: 1)))
        #expect(!StateRollup.needsRecount(remaining: FieldTotals(count: 1), removed: FieldTotals(count: 1, numbers: 1, sum: 2, minimum: 2)))
        let recounted = StateRollup.recount(["t", "gone"], in: [ThingState(state: ["t": 4, "u": 1], timestamp: 5)])
        #expect(recounted == ["t": FieldTotals(count: 1, numbers: 1, sum: 4, minimum: 4, maximum: 4), "gone": FieldTotals()])
    }

    @Test func aPruneRecountsSmallMinutesAndMarksCrowdedOnesStale() {
        let small = StateRollup.Key(minute: 1, field: "t")
        let crowded = StateRollup.Key(minute: 2, field: "t")
        let textOnly = StateRollup.Key(minute: 3, field: "t")
        let one = FieldTotals(count: 1, numbers: 1, sum: 1, minimum: 1, maximum: 1)
        var removed: [StateRollup.Key: FieldTotals] = [small: one, crowded: one, textOnly: one]
        var left: [StateRollup.Key: (totals: FieldTotals, stale: Bool)] = [
            small: (FieldTotals(count: 5, numbers: 5, sum: 20, minimum: 1, maximum: 6), false),
            crowded: (FieldTotals(count: 100, numbers: 100, sum: 500, minimum: 1, maximum: 9), false),
            textOnly: (FieldTotals(count: 2), false),
        ]
        for (minute, states) in [(Int64(1), Int64(5)), (2, 100), (3, 2)] {
            removed[.init(minute: minute, field: "")] = FieldTotals(count: 1)
            left[.init(minute: minute, field: "")] = (FieldTotals(count: states), false)
        }
        let upkeep = StateRollup.upkeep(removed: removed, left: left)
        #expect(upkeep.recounts == [1: ["t"]])
        #expect(upkeep.stale == [crowded])
        #expect(upkeep.emptied == [textOnly])
        // A stale row stays so while its minute is crowded, and is recounted once it is not.
        left[crowded] = (FieldTotals(count: 99, numbers: 99, sum: 495, minimum: 1, maximum: 9), true)
        #expect(StateRollup.upkeep(removed: [crowded: FieldTotals(count: 1, numbers: 1, sum: 5, minimum: 5, maximum: 5)], left: left).stale == [])
        left[.init(minute: 2, field: "")] = (FieldTotals(count: 64), false)
        #expect(StateRollup.upkeep(removed: [crowded: FieldTotals(count: 1)], left: left).recounts[2] == ["t"])
    }

    @Test func staleMinutesAreReadFromTheStates() throws {
        let plan = try StateGrouping(from: 0, to: 599_999, interval: 300_000).plan
        #expect(plan.splitMinutes.isEmpty && plan.stateRanges.isEmpty)
        let stale = plan.readingFromStates([4, 3, 20, 8])
        #expect(stale.splitMinutes == [3, 4, 8])
        #expect(stale.stateRanges == [180_000...299_999, 480_000...539_999])
        #expect(stale.wholeMinutes == plan.wholeMinutes && stale.lead == plan.lead)
        #expect(plan.readingFromStates([]) == plan)
    }

    @Test func storedTotalsKeepWhetherNumbersWereIntegers() {
        var totals = FieldTotals(count: 2, numbers: 2, decimals: 0, sum: 7, minimum: 3, maximum: 4)
        #expect(StateAggregation(kind: .sum, field: "t").value(totals) == 7)
        totals.merge(FieldTotals(count: 1, numbers: 1, decimals: 1, sum: 0.5, minimum: 0.5, maximum: 0.5))
        #expect(StateAggregation(kind: .sum, field: "t").value(totals) == .double(7.5))
        #expect(totals.storedMinimum == 0.5 && totals.storedMaximum == 4)
        #expect(FieldTotals(count: 3).storedMinimum == nil && FieldTotals(count: 3).storedMaximum == nil)
    }

    // MARK: - What a grouped query reads

    @Test func aRangeOfWholeMinutesInWholeMinuteGroupsReadsRollupsOnly() throws {
        let day = try StateGrouping(from: 3_600_000, to: 3_600_000 + 86_400_000 - 1, interval: 3_600_000)
        #expect(day.plan == StateReadPlan(wholeMinutes: 60...(60 + 1_439), lead: 0, splitMinutes: [], stateRanges: []))
    }

    @Test func theEdgesAndTheSplitMinutesAreReadFromTheStates() throws {
        // From 30 s into minute 0 to 10 s into minute 5, in groups of 90 s: boundaries at 120 s (on a minute),
        // 210 s (30 s into minute 3) and 300 s (on a minute).
        let grouping = try StateGrouping(from: 30_000, to: 310_000, interval: 90_000)
        let plan = grouping.plan
        #expect(plan.wholeMinutes == 1...4)
        #expect(plan.lead == 30_000)
        #expect(plan.splitMinutes == [3])
        #expect(plan.stateRanges == [30_000...59_999, 180_000...239_999, 300_000...310_000])
        // Minute 4 (240 s) is in group (3 * 60,000 + 30,000) / 90,000 = 2, as 240,000 - 30,000 is.
        #expect(grouping.group(of: 240_000) == Int((3 * 60_000 + plan.lead) / 90_000))
    }

    @Test func aRangeInsideAMinuteIsReadFromTheStates() throws {
        let grouping = try StateGrouping(from: 61_000, to: 62_000, interval: 100)
        #expect(grouping.plan == StateReadPlan(wholeMinutes: nil, lead: 0, splitMinutes: [], stateRanges: [61_000...62_000]))
    }

    @Test func subMinuteGroupsJoinTheirSplitMinutes() throws {
        let grouping = try StateGrouping(from: 0, to: 179_999, interval: 20_000)
        let plan = grouping.plan
        #expect(plan.wholeMinutes == 0...2)
        #expect(plan.splitMinutes == [0, 1, 2])
        #expect(plan.stateRanges == [0...179_999])
    }

    @Test func negativeTimesArePlannedAsOthers() throws {
        let grouping = try StateGrouping(from: -90_000, to: 89_999, interval: 60_000)
        let plan = grouping.plan
        #expect(plan.wholeMinutes == -1...0)
        #expect(plan.lead == 30_000)
        #expect(plan.splitMinutes == [-1, 0])
        #expect(plan.stateRanges == [-90_000...89_999])
    }

    // MARK: - The wire's grouped query

    @Test func aGroupedQueryIsReadFromTheCallsParams() throws {
        #expect(try GroupedStateQuery.parse(grouped: nil, from: 1, to: 2, interval: nil, aggregations: nil, limit: 5, paginationKey: "k") == nil)
        #expect(
            try GroupedStateQuery.parse(grouped: false, from: nil, to: nil, interval: nil, aggregations: nil, limit: nil, paginationKey: nil) == nil
        )
        let query = try #require(
            try GroupedStateQuery.parse(
                grouped: true,
                from: 0,
                to: 86_399_999,
                interval: 3_600_000,
                aggregations: [["type": "MAX", "field": "temp"], ["type": "COUNT"]],
                limit: nil,
                paginationKey: nil
            )
        )
        #expect(query.grouping.count == 24)
        #expect(query.aggregations == [StateAggregation(kind: .max, field: "temp"), StateAggregation(kind: .count, field: nil)])
        let defaulted = try GroupedStateQuery.parse(
            grouped: true,
            from: 0,
            to: 86_399_999,
            interval: nil,
            aggregations: nil,
            limit: nil,
            paginationKey: nil
        )
        #expect(defaulted?.grouping.interval == 1_800_000 && defaulted?.aggregations == [])
    }

    @Test func aGroupedQuerysMistakesNameTheParam() {
        let eleven = [JSONValue](repeating: ["type": "COUNT"], count: 11)
        let cases: [(Bool?, Int64?, Int64?, Int64?, [JSONValue]?, Int?, String?, String)] = [
            (nil, 0, 10, 5, nil, nil, nil, "interval"),
            (false, 0, 10, nil, [["type": "COUNT"]], nil, nil, "aggregations"),
            (true, 0, 10, nil, nil, 10, nil, "limit"),
            (true, 0, 10, nil, nil, nil, "key", "paginationKey"),
            (true, nil, 10, nil, nil, nil, nil, "from"),
            (true, 0, nil, nil, nil, nil, nil, "to"),
            (true, 0, 10_000_000, 1, nil, nil, nil, "interval"),
            (true, 0, 10, nil, [["type": "MEDIAN", "field": "t"]], nil, nil, "aggregations"),
            (true, 0, 10, nil, eleven, nil, nil, "aggregations"),
            (true, 0, 10, nil, [["type": "MAX", "field": "t"], ["type": "MAX", "field": "t"]], nil, nil, "aggregations"),
        ]
        for (grouped, from, to, interval, aggregations, limit, key, field) in cases {
            do {
                _ = try GroupedStateQuery.parse(
                    grouped: grouped,
                    from: from,
                    to: to,
                    interval: interval,
                    aggregations: aggregations,
                    limit: limit,
                    paginationKey: key
                )
                Issue.record("no error for \(field)")
            } catch {
                #expect(error.code == .invalidInput && error.field == field, "\(error)")
            }
        }
    }
}
