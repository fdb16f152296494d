import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// Grouped and aggregated state history (issue 42, item 4; data-things-messages.md §4.2): Thing-IF's grouped
/// queries with COUNT, MAX, MIN, MEAN and SUM, or the groups' states; who may read them; pruning.
extension ThingServiceTests {
    static func query(
        from: Int64,
        to: Int64,
        interval: Int64?,
        _ aggregations: [JSONValue]?
    ) throws -> GroupedStateQuery {
        try #require(
            try GroupedStateQuery.parse(
                grouped: true,
                from: from,
                to: to,
                interval: interval,
                aggregations: aggregations,
                limit: nil,
                paginationKey: nil
            )
        )
    }

    @Test func aGroupedHistoryAggregatesEachIntervalForOwnersTheThingAndAdmins() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let stranger = try await world.user("stranger")
        let thing = try await world.onboard(alice.caller, alice.id)
        let hour: Int64 = 3_600_000
        let query = try Self.query(
            from: 0,
            to: 3 * hour - 1,
            interval: hour,
            [
                ["type": "COUNT"], ["type": "MAX", "field": "temp", "putAggregationInto": "hottest"], ["type": "MIN", "field": "temp"],
                ["type": "MEAN", "field": "temp"], ["type": "SUM", "field": "watts"], ["type": "COUNT", "field": "watts"],
            ]
        )
        // Never uploaded: no history, as Kii answers.
        #expect(
            await self.code { _ = try await world.things.groupedStateHistory(caller: alice.caller, thingID: thing.id, query: query) }
                == .stateHistoryNotAvailable
        )
        // Hour 0: 20, 22.5 and a state without temp; hour 1: nothing; hour 2: 18 and text.
        let uploads: [([String: JSONValue], Int64)] = [
            (["temp": 20, "watts": 5], 60_000), (["temp": 22.5, "watts": 7], 30 * 60_000), (["power": true], hour - 1),
            (["temp": 18, "watts": 1.5], 2 * hour), (["temp": "broken"], 3 * hour - 1),
        ]
        for (state, time) in uploads {
            _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: state, timestamp: time)
        }
        let groups = try await world.things.groupedStateHistory(caller: alice.caller, thingID: thing.id, query: query)
        #expect(groups.map(\.from) == [0, hour, 2 * hour] && groups.map(\.to) == [hour - 1, 2 * hour - 1, 3 * hour - 1])
        // A group with a decimal has decimal MAX, MIN and SUM (as Thing-IF's DECIMAL fields do).
        #expect(groups[0].values == [3, .double(22.5), .double(20), .double(21.25), 12, 2])
        #expect(groups[1].values == [0, .null, .null, .null, .null, 0])
        #expect(groups[2].values == [2, 18, 18, .double(18), .double(1.5), 1])
        #expect(groups.allSatisfy { $0.states.isEmpty })

        // The thing itself and admins read it too; a stranger may not.
        #expect(try await world.things.groupedStateHistory(caller: thing.caller, thingID: thing.id, query: query) == groups)
        #expect(try await world.things.groupedStateHistory(caller: world.admin, thingID: thing.id, query: query) == groups)
        #expect(
            await self.code { _ = try await world.things.groupedStateHistory(caller: stranger.caller, thingID: thing.id, query: query) }
                == .permissionDenied
        )
        #expect(
            await self.code { _ = try await world.things.groupedStateHistory(caller: alice.caller, thingID: "th.missing", query: query) }
                == .thingNotFound
        )

        // Without aggregations, each group holds its states by timestamp.
        let objects = try await world.things.groupedStateHistory(
            caller: alice.caller,
            thingID: thing.id,
            query: try Self.query(from: 0, to: 3 * hour - 1, interval: hour, nil)
        )
        #expect(objects.map { $0.states.map(\.timestamp) } == [[60_000, 30 * 60_000, hour - 1], [], [2 * hour, 3 * hour - 1]])
        #expect(objects.allSatisfy { $0.values.isEmpty })
    }

    @Test func aGroupedHistoryWithoutAggregationsAnswersWithAtMostAThousandStates() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        // Stored in one transaction (uploads would keep 1,000 of them).
        try await world.temp.store.write { tx in
            for index in 0..<1_001 {
                try tx.things.insertState(
                    thingID: thing.id,
                    state: ThingState(state: ["n": .int(Int64(index))], timestamp: Int64(index)),
                    uploaded: 1
                )
            }
            try tx.things.markThingHasState(id: thing.id)
        }
        let all = try Self.query(from: 0, to: 1_000, interval: nil, nil)
        #expect(
            await self.code { _ = try await world.things.groupedStateHistory(caller: alice.caller, thingID: thing.id, query: all) } == .invalidInput
        )
        let fewer = try await world.things.groupedStateHistory(
            caller: alice.caller,
            thingID: thing.id,
            query: try Self.query(from: 1, to: 1_000, interval: nil, nil)
        )
        #expect(fewer.reduce(0) { $0 + $1.states.count } == 1_000)
        // Counted, they are all there.
        let counted = try await world.things.groupedStateHistory(
            caller: alice.caller,
            thingID: thing.id,
            query: try Self.query(from: 0, to: 1_000, interval: nil, [["type": "COUNT"], ["type": "SUM", "field": "n"]])
        )
        #expect(counted.map(\.values) == [[1_001, .int(500_500)]])
    }

    @Test func prunedStatesLeaveTheAggregates() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        var things = world.things
        things.stateHistory = StateHistoryLimits(count: 3, days: 30)
        // All in one minute: the oldest holds the maximum, then the minimum.
        for (temp, time) in [(9, 1_000), (1, 2_000), (5, 3_000), (4, 4_000), (6, 5_000)] {
            _ = try await things.putState(caller: thing.caller, thingID: thing.id, state: ["temp": .int(Int64(temp))], timestamp: Int64(time))
        }
        let query = try Self.query(
            from: 0,
            to: 59_999,
            interval: nil,
            [["type": "COUNT"], ["type": "MAX", "field": "temp"], ["type": "MIN", "field": "temp"], ["type": "SUM", "field": "temp"]]
        )
        let groups = try await things.groupedStateHistory(caller: alice.caller, thingID: thing.id, query: query)
        #expect(groups.map(\.values) == [[3, 6, 4, 15]])
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() } == [])
    }

    @Test func theStartKeepsRollupsOnlyForAHistoryLongerThanTheDefault() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        let query = try Self.query(from: 0, to: 179_999, interval: 60_000, [["type": "COUNT"], ["type": "MAX", "field": "temp"]])
        var things = world.things
        func upload(_ temps: some Sequence<Int>, from start: Int) async throws {
            for (offset, temp) in temps.enumerated() {
                let time = Int64((start + offset) * 10_000)
                _ = try await things.putState(caller: thing.caller, thingID: thing.id, state: ["temp": .int(Int64(temp))], timestamp: time)
            }
        }
        func rollupRows() async throws -> Int {
            try await world.temp.store.read { tx in
                try tx.things.stateRollupTotals(
                    thingID: thing.id,
                    fields: [StateRollup.statesField],
                    minutes: 0...2,
                    excluding: [],
                    lead: 0,
                    interval: 60_000
                ).count
            }
        }
        // The default (1,000 states a thing): the start empties the rollups, uploads keep none, and grouped history
        // reads the states.
        #expect(things.stateHistory.keepsRollups == false)
        try await things.reconcileStateRollups()
        try await upload([3, 8, 1, 9, 2, 7, 4, 6, 5, 0, 11, 12], from: 0)
        #expect(try await rollupRows() == 0)
        let fromStates = try await things.groupedStateHistory(caller: alice.caller, thingID: thing.id, query: query)
        #expect(fromStates.map(\.values) == [[6, 9], [6, 12], [0, .null]])
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() } == [])

        // A longer history: the next start fills the rollups from the states kept; uploads keep them.
        things.stateHistory = StateHistoryLimits(count: 20_000, days: 30)
        try await things.reconcileStateRollups()
        #expect(try await rollupRows() == 2)
        try await upload([20, 1], from: 12)
        #expect(try await rollupRows() == 3)
        let fromRollups = try await things.groupedStateHistory(caller: alice.caller, thingID: thing.id, query: query)
        #expect(fromRollups.map(\.values) == [[6, 9], [6, 12], [2, 20]])
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() } == [])
    }
}
