import Foundation
import GuildCore
import GuildJSON
import GuildTestSupport
import PostgresNIO
import Testing

@testable import GuildPostgres

/// The states' minute rollups (issue 42, item 4) behave the same on every engine: a grouped history read from
/// them answers what the states themselves answer, after uploads, after prunes that take a minute's minimum or
/// maximum, and after a thing's deletion; PostgreSQL's version 26 fills them from the states kept.
@Suite(.timeLimit(.minutes(10)))
struct StateRollupConformanceTests {
    /// What a grouped history should answer, from the states themselves.
    static func expected(_ states: [ThingState], _ grouping: StateGrouping, fields: [String]) -> [[String: FieldTotals]] {
        var groups = [[String: FieldTotals]](repeating: [:], count: grouping.count)
        for state in states {
            guard let group = grouping.group(of: state.timestamp) else { continue }
            groups[group][StateRollup.statesField, default: FieldTotals()].count += 1
            for field in fields {
                guard let value = state.state[field] else { continue }
                groups[group][field, default: FieldTotals()].add(value)
            }
        }
        return groups
    }

    /// 240 states over about 28 minutes: `t` a multiple of 0.25 (sums stay exact) or an integer, missing from
    /// every fifth state and text in every seventh; `n` an integer; `on` a Boolean.
    static func states(count: Int = 240, start: Int64 = 10_000) -> [ThingState] {
        (0..<count).map { index in
            var state: [String: JSONValue] = ["n": .int(Int64(index)), "on": .bool(index % 2 == 0)]
            if index % 7 == 0 {
                state["t"] = "warm"
            } else if index % 5 != 0 {
                state["t"] = index % 3 == 0 ? .int(Int64(index % 11) - 4) : .double(Double(index % 13) * 0.25 - 1.5)
            }
            return ThingState(state: state, timestamp: start + Int64(index) * 7_000)
        }
    }

    static let fields = ["t", "n", "on", "missing"]

    /// Groupings of every kind: whole minutes, ranges and boundaries inside minutes, shorter than a minute, the
    /// default interval.
    static func groupings() throws -> [StateGrouping] {
        [
            try StateGrouping(from: 0, to: 1_799_999, interval: 60_000),
            try StateGrouping(from: 0, to: 1_799_999, interval: 600_000),
            try StateGrouping(from: 10_000, to: 1_500_000, interval: 90_000),
            try StateGrouping(from: 35_500, to: 900_000, interval: 45_000),
            try StateGrouping(from: 0, to: 3_599_999, interval: nil),
            try StateGrouping(from: 200_000, to: 230_500, interval: 100),
            try StateGrouping(from: -120_000, to: 119_999, interval: 120_000),
        ]
    }

    static func insert(_ states: [ThingState], thingID: String, into store: ThingRecordsStore) async throws {
        try await store.write { tx in
            // As the service stores an upload: the thing is marked as having a history (an invariant).
            if !states.isEmpty { try tx.things.markThingHasState(id: thingID) }
            for (index, state) in states.enumerated() {
                try tx.things.insertState(thingID: thingID, state: state, uploaded: Int64(index))
            }
        }
    }

    static func expectGroups(
        _ store: ThingRecordsStore,
        thingID: String,
        states: [ThingState],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for grouping in try Self.groupings() {
            let read = try await store.read { tx in
                try grouping.totals(thingID: thingID, fields: Set(Self.fields), in: tx.things)
            }
            #expect(read == Self.expected(states, grouping, fields: Self.fields), "\(grouping)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Engine.available)
    func groupsReadFromTheRollupsAnswerAsTheStatesDo(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { tx in
                try tx.things.insertThing(try ThingRecordsConformanceTests.thing("th.1"))
                try tx.things.insertThing(try ThingRecordsConformanceTests.thing("th.2"))
            }
            let states = Self.states()
            try await Self.insert(states, thingID: "th.1", into: store)
            // Another thing's states, in the same minutes, count for it alone.
            try await Self.insert(Self.states(count: 50, start: 12_345), thingID: "th.2", into: store)
            try await Self.expectGroups(store, thingID: "th.1", states: states)
            try await Self.expectGroups(store, thingID: "th.2", states: Self.states(count: 50, start: 12_345))
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])

            // The values an aggregation reports.
            let query = try GroupedStateQuery(
                grouping: try StateGrouping(from: 0, to: 1_799_999, interval: 600_000),
                aggregations: [
                    StateAggregation(kind: .count, field: nil), StateAggregation(kind: .count, field: "t"),
                    StateAggregation(kind: .max, field: "n"), StateAggregation(kind: .mean, field: "n"),
                    StateAggregation(kind: .sum, field: "missing"),
                ]
            )
            let groups = try await store.read { tx in try query.groups(thingID: "th.1", in: tx.things) }
            #expect(groups.map(\.from) == [0, 600_000, 1_200_000] && groups.map(\.to) == [599_999, 1_199_999, 1_799_999])
            // States 0-84 are before 600,000 (10,000 + 84 * 7,000 = 598,000).
            // Of those, 0, 5, ..., 80 have no `t` but for 0, 35 and 70 (text): 85 - 17 + 3 have one.
            #expect(groups[0].values == [85, 71, 84, .double(42), .null])
        }
    }

    @Test(arguments: Engine.available)
    func rollupsSwitchedOffAreEmptiedAndSwitchedOnAreFilledFromTheStates(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try ThingRecordsConformanceTests.thing("th.1")) }
            let states = Self.states()
            try await Self.insert(Array(states.prefix(120)), thingID: "th.1", into: store)
            #expect(try await store.read { try $0.things.stateRollupsKept() })

            // Off (guildd's default history of 1,000 states): the rows go, uploads and prunes keep none, and
            // grouped totals read from the states answer as before.
            try await store.write { try $0.things.keepStateRollups(false) }
            #expect(try await store.read { try $0.things.stateRollupsKept() } == false)
            try await Self.insert(Array(states.suffix(120)), thingID: "th.1", into: store)
            let dropped = try await store.write { tx in try tx.things.pruneStates(thingID: "th.1", keepCount: 200, before: 0) }
            #expect(dropped == 40)
            let kept = Array(states.suffix(200))
            for grouping in try Self.groupings() {
                let read = try await store.read { tx in
                    try grouping.totals(thingID: "th.1", fields: Set(Self.fields), in: tx.things, rollups: false)
                }
                #expect(read == Self.expected(kept, grouping, fields: Self.fields), "\(grouping)")
            }
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])

            // On again (a longer history): filled from the states kept, then kept by uploads and prunes.
            try await store.write { try $0.things.keepStateRollups(true) }
            #expect(try await store.read { try $0.things.stateRollupsKept() })
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])
            try await Self.expectGroups(store, thingID: "th.1", states: kept)
            _ = try await store.write { tx in try tx.things.pruneStates(thingID: "th.1", keepCount: 150, before: 0) }
            try await Self.expectGroups(store, thingID: "th.1", states: Array(kept.suffix(150)))
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])
        }
    }

    @Test(arguments: Engine.available)
    func pruningTakesStatesOutOfTheirMinutesAndRecountsTheirMinimumAndMaximum(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try ThingRecordsConformanceTests.thing("th.1")) }
            // In each minute `t` rises, so the oldest state of a minute holds its minimum, and `n` falls, so it holds
            // its maximum: every prune takes one away. From state 45 on `t` is text: once minute 4's numbers are
            // gone, its row has none.
            let states = (0..<60).map { index -> ThingState in
                let t: JSONValue = index >= 45 ? "off" : .double(Double(index % 10) * 0.5)
                return ThingState(state: ["t": t, "n": .int(Int64(100 - index))], timestamp: 60_000 * Int64(index / 10) + Int64(index % 10) * 1_000)
            }
            try await Self.insert(states, thingID: "th.1", into: store)
            var kept = states
            for keep in [57, 51, 44, 40, 33, 20, 13, 9, 8, 1] {
                let dropped = try await store.write { tx in try tx.things.pruneStates(thingID: "th.1", keepCount: keep, before: 0) }
                #expect(dropped == kept.count - keep)
                kept = Array(kept.suffix(keep))
                try await Self.expectGroups(store, thingID: "th.1", states: kept)
                #expect(try await store.read { try $0.things.thingInvariantViolations() } == [], "keeping \(keep)")
            }
        }
    }

    @Test(arguments: Engine.available)
    func aCrowdedMinuteIsReadFromItsStatesUntilAPruneCanRecountIt(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try ThingRecordsConformanceTests.thing("th.1")) }
            // 100 states in minute 0 (`t` rising, `n` falling), 10 in minute 1.
            let states = (0..<110).map { index -> ThingState in
                let time = index < 100 ? Int64(index) * 500 : 60_000 + Int64(index - 100) * 1_000
                return ThingState(state: ["t": .double(Double(index) * 0.5), "n": .int(Int64(1_000 - index))], timestamp: time)
            }
            try await Self.insert(states, thingID: "th.1", into: store)
            #expect(try await store.read { try $0.things.staleRollupMinutes(thingID: "th.1", minutes: 0...10) } == [])
            // Five go: minute 0 keeps 95 states, more than a prune reads again, so its `t` and `n` are stale.
            #expect(try await store.write { try $0.things.pruneStates(thingID: "th.1", keepCount: 105, before: 0) } == 5)
            #expect(try await store.read { try $0.things.staleRollupMinutes(thingID: "th.1", minutes: 0...10) } == [0])
            #expect(try await store.read { try $0.things.staleRollupMinutes(thingID: "th.1", minutes: 1...10) } == [])
            try await Self.expectGroups(store, thingID: "th.1", states: Array(states.suffix(105)))
            // 45 more: 50 are left in minute 0, few enough to be read again at once.
            #expect(try await store.write { try $0.things.pruneStates(thingID: "th.1", keepCount: 60, before: 0) } == 45)
            #expect(try await store.read { try $0.things.staleRollupMinutes(thingID: "th.1", minutes: 0...10) } == [])
            try await Self.expectGroups(store, thingID: "th.1", states: Array(states.suffix(60)))
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])
        }
    }

    @Test(arguments: Engine.available)
    func aDeletedThingsRollupsGoWithIt(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { tx in
                try tx.things.insertThing(try ThingRecordsConformanceTests.thing("th.1"))
                try tx.things.insertThing(try ThingRecordsConformanceTests.thing("th.2"))
            }
            try await Self.insert(Self.states(count: 30), thingID: "th.1", into: store)
            try await Self.insert(Self.states(count: 30), thingID: "th.2", into: store)
            try await store.write { try $0.things.deleteThing(id: "th.1") }
            let gone = try await store.read { tx in
                try tx.things.stateRollupTotals(thingID: "th.1", fields: ["", "t"], minutes: 0...100, excluding: [], lead: 0, interval: 60_000)
            }
            #expect(gone.isEmpty)
            try await Self.expectGroups(store, thingID: "th.2", states: Self.states(count: 30))
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])
            // A thing made again under the same id starts with no rollups.
            try await store.write { try $0.things.insertThing(try ThingRecordsConformanceTests.thing("th.1")) }
            try await Self.expectGroups(store, thingID: "th.1", states: [])
        }
    }

    @Test(arguments: Engine.available)
    func statesByTimeAreInTimestampOrder(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try ThingRecordsConformanceTests.thing("th.1")) }
            let states = [30, 10, 20, 10, 40].map { ThingState(state: ["at": .int($0)], timestamp: $0) }
            try await Self.insert(states, thingID: "th.1", into: store)
            let read = try await store.read { try $0.things.statesByTime(thingID: "th.1", from: 10, to: 30) }
            #expect(read == [states[1], states[3], states[2], states[0]])
            #expect(try await store.read { try $0.things.statesByTime(thingID: "th.9", from: 0, to: 100) } == [])
        }
    }

    // MARK: - PostgreSQL's version 26

    @Test(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"))
    func version26CountsTheStatesAlreadyKept() async throws {
        try await TestPostgres.withDatabase { location in
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            _ = try await TestPostgres.blocking {
                try PostgresMigrator.migrate(connection, migrations: PostgresMigration.all.filter { $0.version != 26 })
            }
            try await TestPostgres.blocking {
                try connection.execute(
                    """
                    INSERT INTO thing (thing_id, vendor_thing_id, password_hash, properties, created, modified, has_state)
                    VALUES ('th.1', 'lamp-1', 'hash', \(ByteBuffer(string: "{}")), 10, 10, true)
                    """
                )
                for (text, timestamp) in OddStates.all {
                    try connection.execute(
                        """
                        INSERT INTO thing_state (thing_id, timestamp, state, uploaded)
                        VALUES ('th.1', \(timestamp), \(ByteBuffer(string: text)), 1)
                        """
                    )
                }
            }
            _ = try await TestPostgres.blocking { try PostgresMigrator.migrate(connection) }
            let states = try OddStates.all.map { state in
                ThingState(state: try ThingRecordsConformanceTests.json(state.text), timestamp: state.timestamp)
            }
            let fields = ["t", "on", "s", "n", "q\"uote", "é", "o", "z", "w\u{FFFD}", "v", "big", "arr", "a\u{0}b"]
            let grouping = try StateGrouping(from: -180_000, to: 179_999, interval: 60_000)
            let read = try await TestPostgres.blocking {
                try grouping.totals(thingID: "th.1", fields: Set(fields), in: PostgresTransaction(reading: connection).things)
            }
            #expect(read == Self.expected(states, grouping, fields: fields.filter(StateRollup.isRolledUp)))
            #expect(
                try await TestPostgres.blocking { try PostgresTransaction(reading: connection).things.thingInvariantViolations() } == []
            )
        }
    }
}
