import GuildJSON
import Testing

@testable import GuildCore

/// Thing-IF's grouped and aggregated state history, the parts without storage: the aggregations, the totals
/// they are computed from (which merge, so a group is the merge of its parts), and the split of a range.
struct StateAggregationTests {
    static func totals(_ values: [JSONValue?]) -> FieldTotals {
        var totals = FieldTotals()
        for value in values { totals.add(value) }
        return totals
    }

    @Test func eachAggregationOfAField() {
        let totals = Self.totals([3, 7, nil, 5, "text", true])
        #expect(StateAggregation(kind: .count, field: "t").value(totals) == 5)
        #expect(StateAggregation(kind: .max, field: "t").value(totals) == 7)
        #expect(StateAggregation(kind: .min, field: "t").value(totals) == 3)
        #expect(StateAggregation(kind: .sum, field: "t").value(totals) == 15)
        #expect(StateAggregation(kind: .mean, field: "t").value(totals) == .double(5))
        let decimals = Self.totals([1.5, 2])
        #expect(StateAggregation(kind: .sum, field: "t").value(decimals) == .double(3.5))
        #expect(StateAggregation(kind: .max, field: "t").value(decimals) == .double(2))
    }

    @Test func aGroupWithoutNumbersHasNullAggregationsAndACount() {
        let totals = Self.totals(["a", nil, false])
        #expect(StateAggregation(kind: .count, field: "t").value(totals) == 2)
        for kind in [StateAggregation.Kind.max, .min, .mean, .sum] {
            #expect(StateAggregation(kind: kind, field: "t").value(totals) == .null)
        }
        #expect(StateAggregation(kind: .count, field: nil).value(FieldTotals()) == 0)
    }

    @Test func totalsOfPartsMergeIntoTheTotalsOfTheWhole() {
        let values: [JSONValue?] = [4, 9.5, nil, -2, 8, "x", 1]
        var merged = Self.totals(Array(values[..<3]))
        merged.merge(Self.totals(Array(values[3...])))
        #expect(merged == Self.totals(values))
        var empty = FieldTotals()
        empty.merge(FieldTotals())
        #expect(empty == FieldTotals())
    }

    @Test func anAggregationIsReadAsThingIFWritesIt() throws {
        let parsed = try StateAggregation(json: ["type": "max", "field": "temperature", "putAggregationInto": "hottest"])
        #expect(parsed == StateAggregation(kind: .max, field: "temperature", name: "hottest"))
        #expect(try StateAggregation(json: ["type": "COUNT"]).name == "count")
        #expect(try StateAggregation(json: ["type": "MEAN", "field": "temperature"]).name == "mean_temperature")
        for bad: JSONValue in [
            "MAX", ["type": "MEDIAN", "field": "t"], ["type": "MAX"], ["type": "SUM", "field": "a.b"], ["type": "SUM", "field": 3],
            ["type": "SUM", "field": "t", "putAggregationInto": ""],
        ] {
            #expect(throws: GuildError.invalidInput("", field: "aggregations"), "\(bad)") { try StateAggregation(json: bad) }
        }
    }

    @Test func aRangeSplitsIntoIntervalsTheLastEndingAtTo() throws {
        let grouping = try StateGrouping(from: 0, to: 3 * 3_600_000 - 1, interval: 3_600_000)
        #expect(grouping.count == 3)
        #expect(grouping.range(0) == (0, 3_599_999))
        #expect(grouping.range(2) == (7_200_000, 10_799_999))
        #expect(grouping.group(of: 3_600_000) == 1)
        #expect(grouping.group(of: -1) == nil)
        #expect(grouping.group(of: 10_800_000) == nil)
        // A range that is not a whole number of intervals: the last group is shorter.
        let ragged = try StateGrouping(from: 0, to: 150, interval: 100)
        #expect(ragged.count == 2)
        #expect(ragged.range(1) == (100, 150))
    }

    @Test func withoutAnIntervalTheShortestStepGivingAtMostSixtyGroups() throws {
        #expect(try StateGrouping(from: 0, to: 3_600_000 - 1, interval: nil).interval == 60_000)
        #expect(try StateGrouping(from: 0, to: 86_400_000 - 1, interval: nil).interval == 1_800_000)
        #expect(try StateGrouping(from: 0, to: 7 * 86_400_000 - 1, interval: nil).interval == 10_800_000)
    }

    @Test func badRangesAndIntervalsAreRefused() {
        let cases: [(Int64?, Int64?, Int64?)] = [
            (nil, 10, 1), (0, nil, 1), (10, 0, 1), (0, 10, 0), (0, 10, -5), (0, 1_000_000, 1), (Int64.min, Int64.max, 1),
        ]
        for (from, to, interval) in cases {
            #expect(throws: GuildError.invalidInput("", field: "interval"), "\(String(describing: from)) \(String(describing: to))") {
                try StateGrouping(from: from, to: to, interval: interval)
            }
        }
    }
}
