import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// The bounds on what a thing's commands and triggers may store (issue 39, item 3): at most
/// `maximumPendingCommands` pending, at most `maximumTriggerFiringsPerSecond` trigger firings in a rolling second,
/// and every firing past them recorded as skipped. The clock is moved by hand, so the counts are exact.
extension ThingServiceTests {
    /// A world with alice, who owns a thing, and a things service on a clock the test moves (from `start`).
    static func aliceWithAThing(
        at start: Int64? = nil
    ) async throws -> (
        world: World, clock: TestClock, things: ThingService, alice: (caller: Caller, id: String), thing: (id: String, caller: Caller)
    ) {
        let world = try await World()
        let clock = start.map { TestClock(at: $0) } ?? TestClock()
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        return (world, clock, Self.things(world, clock), alice, thing)
    }

    /// `count` triggers on `{on: true}` that send a command issued by `owner`, oldest first.
    static func triggers(
        _ count: Int,
        _ things: ThingService,
        _ world: World,
        _ owner: (caller: Caller, id: String),
        thingID: String
    )
        async throws -> [String]
    {
        var ids: [String] = []
        for _ in 0..<count {
            let trigger = try await things.createTrigger(
                caller: owner.caller,
                thingID: thingID,
                condition: ["type": "eq", "field": "on", "value": true],
                command: world.request(.user(owner.id))
            )
            ids.append(trigger.triggerID)
        }
        return ids
    }

    /// The thing's commands, oldest first.
    static func commands(_ world: World, _ thingID: String) async throws -> [ThingCommand] {
        try await world.temp.store.read { try $0.things.commands(thingID: thingID, before: nil, limit: 100_000) }.map(\.command).reversed()
    }

    /// Uploads `{on: false}` then `{on: true}`; returns what the second upload skipped.
    static func flip(_ things: ThingService, _ thing: (id: String, caller: Caller)) async throws -> TriggerSkip? {
        _ = try await things.putState(caller: thing.caller, thingID: thing.id, state: ["on": false], timestamp: nil)
        return try await things.putState(caller: thing.caller, thingID: thing.id, state: ["on": true], timestamp: nil).skipped
    }

    @Test func triggerFiringsPastTheRateAreSkippedAndRecorded() async throws {
        let (world, clock, things, alice, thing) = try await Self.aliceWithAThing()
        defer { world.temp.remove() }
        let triggers = try await Self.triggers(ThingService.maximumTriggers, things, world, alice, thingID: thing.id)
        let rate = ThingService.maximumTriggerFiringsPerSecond
        #expect(rate == 10)

        // The first transition: the first 10 triggers fire, the other 90 are skipped for the rate.
        let first = try await Self.flip(things, thing)
        #expect(first == TriggerSkip(triggerIDs: Array(triggers[rate...]), reason: .firingRate))
        #expect(first?.limit == Int64(rate))
        var commands = try await Self.commands(world, thing.id)
        #expect(commands.compactMap(\.firedByTriggerID) == Array(triggers[..<rate]))
        // Fired or not, a trigger compares the next upload with this one: staying true fires and skips nothing.
        #expect(try await things.putState(caller: thing.caller, thingID: thing.id, state: ["on": true], timestamp: nil).skipped == nil)
        #expect(try await Self.commands(world, thing.id).count == rate)

        // Within the same second (999 ms later), every firing is skipped.
        clock.advance(milliseconds: 999)
        #expect(try await Self.flip(things, thing) == TriggerSkip(triggerIDs: triggers, reason: .firingRate))
        #expect(try await Self.commands(world, thing.id).count == rate)

        // A second after the first firings, 10 more fire.
        clock.advance(milliseconds: 1)
        #expect(try await Self.flip(things, thing) == TriggerSkip(triggerIDs: Array(triggers[rate...]), reason: .firingRate))
        commands = try await Self.commands(world, thing.id)
        #expect(commands.count == 2 * rate)

        // Nothing was lost: each transition of each trigger is a command or a skip in a triggerSkipped event,
        // one event per upload that skipped, to the owners (not to the thing).
        let events = try await world.temp.store.replay(userID: alice.id, installationID: nil, after: 0, through: Int64.max, limit: 10_000)
            .filter { $0.kind == "triggerSkipped" }
        #expect(events.count == 3)
        let skippedIDs = try events.flatMap { event -> [String] in
            let body = try JSONValue(parsing: String(decoding: event.json, as: UTF8.self))
            #expect(body["reason"] == "firingRate" && body["limit"] == .int(Int64(rate)) && body["thingID"] == .string(thing.id))
            guard case .array(let ids) = body["triggerIDs"] else { return [] }
            return ids.compactMap(\.stringValue)
        }
        #expect(skippedIDs.count + commands.count == 3 * triggers.count)
        #expect(try await world.replayedKinds(thing.id).contains("triggerSkipped") == false)
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() }.isEmpty)
    }

    @Test func aThingHasAtMostAThousandCommandsPendingFromSendersAndTriggers() async throws {
        let (world, _, things, alice, thing) = try await Self.aliceWithAThing()
        defer { world.temp.remove() }
        let limit = ThingService.maximumPendingCommands
        #expect(limit == 1000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<limit {
                group.addTask { _ = try await things.send(caller: alice.caller, thingID: thing.id, request: world.request(.user(alice.id))) }
            }
            try await group.waitForAll()
        }
        var commands = try await Self.commands(world, thing.id)
        #expect(commands.count == limit)
        // DELIVERED is pending too.
        try await things.markDelivered(commands.prefix(10).map { (thing.id, $0.commandID) })

        // One more is refused with the limit and the usage, and writes nothing.
        func refusal() async -> GuildError? {
            do {
                _ = try await things.send(caller: alice.caller, thingID: thing.id, request: world.request(.user(alice.id)))
                return nil
            } catch {
                return error as? GuildError
            }
        }
        let refused = try #require(await refusal())
        #expect(refused.code == .quotaExceeded)
        #expect(refused.details == ["limit": 1000, "usage": 1000])
        #expect(refused.message.contains("commands pending per thing"))
        #expect(try await Self.commands(world, thing.id).count == limit)

        // Triggers count against it too: their firings are skipped for pending commands, and recorded.
        let triggers = try await Self.triggers(3, things, world, alice, thingID: thing.id)
        let skipped = try await Self.flip(things, thing)
        #expect(skipped == TriggerSkip(triggerIDs: triggers, reason: .pendingCommands))
        #expect(skipped?.limit == Int64(limit))
        #expect(try await Self.commands(world, thing.id).count == limit)

        // Each result posted frees one: a trigger fires into the room, then the thing is full again.
        for command in commands.prefix(2) {
            _ = try await things.putResults(
                caller: thing.caller,
                thingID: thing.id,
                commandID: command.commandID,
                results: [["turnPower": ["succeeded": true]]]
            )
        }
        #expect(try await Self.flip(things, thing) == TriggerSkip(triggerIDs: [triggers[2]], reason: .pendingCommands))
        commands = try await Self.commands(world, thing.id)
        #expect(commands.count == limit + 2)
        #expect(commands.suffix(2).map(\.firedByTriggerID) == [triggers[0], triggers[1]])
        #expect(await refusal()?.details == ["limit": 1000, "usage": 1000])
        _ = try await things.putResults(
            caller: thing.caller,
            thingID: thing.id,
            commandID: commands[2].commandID,
            results: [["turnPower": ["succeeded": true]]]
        )
        _ = try await things.send(caller: alice.caller, thingID: thing.id, request: world.request(.user(alice.id)))
        #expect(try await world.temp.store.read { try $0.things.pendingCommandCount(thingID: thing.id) } == limit)
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() }.isEmpty)
    }
}
