import Foundation
import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// Triggers as Thing-IF has them (issue 42, items 1 and 2; data-things-messages.md §4.5): the three
/// `triggersWhen` modes, schedules and single times on a clock the test moves, what a daemon that was down does
/// with a due time, `NOTIFY` actions, `trigger.patch`, `trigger.get` and `trigger.results`.
extension ThingServiceTests {
    /// A things service on `world`'s store reading `clock`, schedules in Etc/UTC (also the bounds tests').
    static func things(_ world: World, _ clock: TestClock) -> ThingService {
        var things = ThingService(store: world.temp.store, hasher: PasswordHasher(logN: 4), generations: world.users.generations) {
            clock.now
        }
        things.timeZone = TimeZone(identifier: "Etc/UTC")!
        return things
    }

    /// Fires what is due; how many were handled and when the next is due.
    static func fire(_ things: ThingService) async throws -> (handled: Int, nextDue: Int64?) {
        let fired = try await things.fireDueSchedules()
        return (fired.handled, fired.nextDue)
    }

    static func ms(_ text: String) -> Int64 {
        Int64((ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970 * 1000).rounded())
    }

    /// The commands a trigger sent, oldest first.
    static func sent(_ world: World, _ caller: Caller, _ thingID: String, by triggerID: String) async throws -> [ThingCommand] {
        try await world.things.commands(caller: caller, thingID: thingID, limit: nil, paginationKey: nil).commands
            .filter { $0.firedByTriggerID == triggerID }
            .reversed()
    }

    /// A trigger's firings, newest first.
    static func results(_ things: ThingService, _ caller: Caller, _ thingID: String, _ triggerID: String) async throws -> [TriggerFiring] {
        try await things.triggerResults(caller: caller, thingID: thingID, triggerID: triggerID, limit: nil, paginationKey: nil).results
    }

    @Test func eachTriggersWhenModeFiresOnItsTransitions() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        let condition: JSONValue = ["type": "range", "field": "temperature", "lowerLimit": 30, "lowerIncluded": false]
        var ids: [TriggersWhen: String] = [:]
        for mode in TriggersWhen.allCases {
            ids[mode] =
                try await world.things.createTrigger(
                    caller: alice.caller,
                    thingID: thing.id,
                    predicate: .states(condition: condition, triggersWhen: mode),
                    action: .command(world.request(.user(alice.id)))
                ).triggerID
        }
        for temperature in [20, 31, 35, 20, 40] {
            _ = try await world.things.putState(
                caller: thing.caller,
                thingID: thing.id,
                state: ["temperature": .int(Int64(temperature))],
                timestamp: nil
            )
        }
        // True at 31, 35 and 40; turning true at 31 and 40; changing at 31, 20 and 40.
        let expected: [TriggersWhen: Int] = [.conditionTrue: 3, .conditionFalseToTrue: 2, .conditionChanged: 3]
        for (mode, count) in expected {
            let id = try #require(ids[mode])
            let commands = try await Self.sent(world, alice.caller, thing.id, by: id)
            #expect(commands.count == count, "\(mode)")
            let results = try await Self.results(world.things, alice.caller, thing.id, id)
            #expect(results.count == count, "\(mode)")
            #expect(results.allSatisfy { $0.outcome == .commandSent && $0.cause == "STATES" && $0.dueAt == nil })
            #expect(results.compactMap(\.commandID) == commands.reversed().map(\.commandID))
        }
    }

    /// Schedules count against the firing rate as state triggers do: past it a firing is skipped, recorded, and
    /// reported to the caller (the runner counts it in `guild_trigger_firings_skipped_total`).
    @Test func scheduledCommandsPastTheFiringRateAreSkippedAndReported() async throws {
        let (world, clock, things, alice, thing) = try await Self.aliceWithAThing()
        defer { world.temp.remove() }
        let rate = ThingService.maximumTriggerFiringsPerSecond
        let seven = Self.ms("2026-11-29T07:00:00Z")
        clock.set(seven - 60_000)
        var triggerIDs: Set<String> = []
        for _ in 0...rate {
            let trigger = try await things.createTrigger(
                caller: alice.caller,
                thingID: thing.id,
                predicate: try things.predicate(["eventSource": "SCHEDULE", "schedule": "0 7 * * *"]),
                action: .command(world.request(.user(alice.id)))
            )
            triggerIDs.insert(trigger.triggerID)
        }
        clock.set(seven)
        let fired = try await things.fireDueSchedules()
        #expect(fired.handled == rate + 1)
        #expect(fired.skipped.count == 1)
        #expect(fired.skipped.first?.reason == .firingRate)
        let skippedID = try #require(fired.skipped.first?.triggerIDs.first)
        #expect(triggerIDs.contains(skippedID))
        let sent = try await Self.commands(world, thing.id).compactMap(\.firedByTriggerID)
        #expect(Set(sent) == triggerIDs.subtracting([skippedID]))
        #expect(try await Self.results(things, alice.caller, thing.id, skippedID).map(\.outcome) == [.skipped])
    }

    @Test func aScheduleFiresAtItsDueTimeOnceAndMovesToItsNextTime() async throws {
        let (world, clock, things, alice, thing) = try await Self.aliceWithAThing(at: Self.ms("2026-11-29T06:59:00Z"))
        defer { world.temp.remove() }
        let trigger = try await things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            predicate: try things.predicate(["eventSource": "SCHEDULE", "schedule": "0 7 * * *"]),
            action: .command(world.request(.user(alice.id))),
            title: "Lamp on at 7"
        )
        let seven = Self.ms("2026-11-29T07:00:00Z")
        #expect(trigger.nextFire == seven)
        #expect(trigger.predicate.json["timeZone"] == "Etc/UTC")

        clock.set(seven - 1)
        #expect(try await Self.fire(things) == (0, seven))
        clock.set(seven + 4)
        let tomorrow = Self.ms("2026-11-30T07:00:00Z")
        #expect(try await Self.fire(things) == (1, tomorrow))
        #expect(try await Self.fire(things) == (0, tomorrow))

        let commands = try await Self.sent(world, alice.caller, thing.id, by: trigger.triggerID)
        #expect(commands.count == 1)
        let results = try await Self.results(things, alice.caller, thing.id, trigger.triggerID)
        #expect(
            results == [
                TriggerFiring(
                    triggerID: trigger.triggerID,
                    thingID: thing.id,
                    firedAt: seven + 4,
                    dueAt: seven,
                    cause: "SCHEDULE",
                    outcome: .commandSent,
                    commandID: commands.first?.commandID
                )
            ]
        )
        #expect(try await things.trigger(caller: alice.caller, thingID: thing.id, triggerID: trigger.triggerID).nextFire == tomorrow)
    }

    @Test func aDueTimeFoundLateFiresOnceWithinTheCatchUpWindowAndIsMissedAfterIt() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let start = Self.ms("2026-11-29T06:59:00Z")
        let clock = TestClock(at: start)
        let things = Self.things(world, clock)
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        let once = try await things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            predicate: .scheduleOnce(at: start + 60_000),
            action: .command(world.request(.user(alice.id)))
        )
        let daily = try await things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            predicate: try things.predicate(["eventSource": "SCHEDULE", "schedule": "30 6 * * *"]),
            action: .command(world.request(.user(alice.id)))
        )
        // Down from before 07:00 to 07:10: the single time (07:00) fires late, once.
        clock.set(start + 11 * 60_000)
        #expect(try await things.fireDueSchedules().handled == 1)
        #expect(try await things.fireDueSchedules().handled == 0)
        #expect(try await Self.sent(world, alice.caller, thing.id, by: once.triggerID).count == 1)
        #expect(try await things.trigger(caller: alice.caller, thingID: thing.id, triggerID: once.triggerID).nextFire == nil)

        // Down for three days: the daily 06:30 was due three times, and is handled once, as missed (its last due
        // time is far older than the window), then waits for tomorrow's.
        clock.set(Self.ms("2026-12-02T08:00:00Z"))
        #expect(try await Self.fire(things) == (1, Self.ms("2026-12-03T06:30:00Z")))
        #expect(try await Self.sent(world, alice.caller, thing.id, by: daily.triggerID).isEmpty)
        let results = try await Self.results(things, alice.caller, thing.id, daily.triggerID)
        #expect(results.map(\.outcome) == [.missed])
        #expect(results.first?.reason == "outsideCatchUpWindow")
        #expect(results.first?.dueAt == Self.ms("2026-11-30T06:30:00Z"))
    }

    @Test func twoServicesOnOneStoreFireADueTimeOnce() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let clock = TestClock(at: Self.ms("2026-11-29T06:59:00Z"))
        let first = Self.things(world, clock)
        let second = Self.things(world, clock)
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        var triggerIDs: [String] = []
        for minute in 0..<20 {
            triggerIDs.append(
                try await first.createTrigger(
                    caller: alice.caller,
                    thingID: thing.id,
                    predicate: .scheduleOnce(at: clock.now + 1_000 + Int64(minute)),
                    action: .notify(parameters: nil)
                ).triggerID
            )
        }
        clock.advance(milliseconds: 60_000)
        async let a = first.fireDueSchedules(limit: 3)
        async let b = second.fireDueSchedules(limit: 3)
        var handled = try await a.handled + b.handled
        while true {
            let more = try await first.fireDueSchedules(limit: 3).handled + second.fireDueSchedules(limit: 3).handled
            if more == 0 { break }
            handled += more
        }
        #expect(handled == 20)
        for id in triggerIDs {
            #expect(try await Self.results(first, alice.caller, thing.id, id).map(\.outcome) == [.notified])
        }
    }

    @Test func aNotifyTriggerSendsATriggerFiredEventToTheOwnersAndItsCreator() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let stranger = try await world.user("stranger")
        let thing = try await world.onboard(alice.caller, alice.id)
        _ = try await world.things.onboard(
            caller: bob.caller,
            vendorThingID: "lamp-1",
            password: "pw",
            owner: .user(bob.id),
            thingType: nil,
            firmwareVersion: nil,
            properties: nil
        )
        let trigger = try await world.things.createTrigger(
            caller: bob.caller,
            thingID: thing.id,
            predicate: .states(condition: ["type": "eq", "field": "power", "value": true], triggersWhen: .conditionTrue),
            action: .notify(parameters: ["scene": "morning"])
        )
        _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: ["power": true], timestamp: nil)
        for principal in [alice.id, bob.id] {
            let fired = try await world.temp.store.replay(userID: principal, installationID: nil, after: 0, through: Int64.max, limit: 10_000)
                .filter { $0.kind == "triggerFired" }
                .map { event in try JSONValue(parsing: String(decoding: event.json, as: UTF8.self)) }
            #expect(fired.count == 1, "\(principal)")
            #expect(fired.first?["triggerID"] == .string(trigger.triggerID))
            #expect(fired.first?["eventSource"] == "STATES")
            #expect(fired.first?["parameters"] == ["scene": "morning"])
            #expect(fired.first?["thingID"] == .string(thing.id))
        }
        #expect(try await world.replayedKinds(stranger.id).contains("triggerFired") == false)
        #expect(try await world.replayedKinds(thing.id).contains("triggerFired") == false)
        #expect(try await Self.results(world.things, alice.caller, thing.id, trigger.triggerID).map(\.outcome) == [.notified])
        // No command went to the thing.
        #expect(try await Self.sent(world, alice.caller, thing.id, by: trigger.triggerID).isEmpty)
    }

    @Test func patchReplacesWhatItIsGivenAndKeepsTheResults() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let clock = TestClock(at: Self.ms("2026-11-29T06:59:00Z"))
        let things = Self.things(world, clock)
        let alice = try await world.user("alice")
        let stranger = try await world.user("stranger")
        let thing = try await world.onboard(alice.caller, alice.id)
        let trigger = try await things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            predicate: .states(condition: ["type": "eq", "field": "power", "value": true], triggersWhen: .conditionTrue),
            action: .command(world.request(.user(alice.id))),
            title: "Power",
            description: "When the power is on"
        )
        _ = try await things.putState(caller: thing.caller, thingID: thing.id, state: ["power": true], timestamp: nil)
        clock.advance(milliseconds: 1_000)

        let at = clock.now + 120_000
        let patched = try await things.patchTrigger(
            caller: alice.caller,
            thingID: thing.id,
            triggerID: trigger.triggerID,
            predicate: .scheduleOnce(at: at),
            action: .notify(parameters: nil),
            title: "Once",
            description: ""
        )
        #expect(patched.predicate == .scheduleOnce(at: at))
        #expect(patched.action == .notify(parameters: nil))
        #expect(patched.title == "Once")
        #expect(patched.description == nil)
        #expect(patched.nextFire == at)
        #expect(patched.created == trigger.created)
        #expect(patched.modified == clock.now)
        #expect(try await things.trigger(caller: thing.caller, thingID: thing.id, triggerID: trigger.triggerID) == patched)
        // What was not given stays.
        let retitled = try await things.patchTrigger(
            caller: alice.caller,
            thingID: thing.id,
            triggerID: trigger.triggerID,
            predicate: nil,
            action: nil,
            title: "Later",
            description: nil
        )
        #expect(retitled.predicate == patched.predicate && retitled.action == patched.action && retitled.nextFire == at)
        #expect(try await Self.results(things, alice.caller, thing.id, trigger.triggerID).count == 1)

        let patchBy: (Caller, String) async throws -> Void = { caller, triggerID in
            _ = try await things.patchTrigger(
                caller: caller,
                thingID: thing.id,
                triggerID: triggerID,
                predicate: nil,
                action: nil,
                title: "x",
                description: nil
            )
        }
        #expect(await self.code { try await patchBy(stranger.caller, trigger.triggerID) } == .permissionDenied)
        #expect(await self.code { try await patchBy(thing.caller, trigger.triggerID) } == .permissionDenied)
        #expect(await self.code { try await patchBy(alice.caller, "tr.none") } == .triggerNotFound)
        #expect(
            await self.code { _ = try await things.trigger(caller: stranger.caller, thingID: thing.id, triggerID: trigger.triggerID) }
                == .permissionDenied
        )
        #expect(await self.code { _ = try await things.trigger(caller: alice.caller, thingID: thing.id, triggerID: "tr.none") } == .triggerNotFound)
    }

    @Test func aDisabledScheduleFiresNothingAndEnabledAgainWaitsForItsNextTime() async throws {
        let (world, clock, things, alice, thing) = try await Self.aliceWithAThing(at: Self.ms("2026-11-29T06:59:00Z"))
        defer { world.temp.remove() }
        let trigger = try await things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            predicate: try things.predicate(["eventSource": "SCHEDULE", "schedule": "*/5 * * * *"]),
            action: .notify(parameters: nil)
        )
        try await things.setTrigger(caller: alice.caller, thingID: thing.id, triggerID: trigger.triggerID, enabled: false)
        clock.set(Self.ms("2026-11-29T07:12:00Z"))
        #expect(try await Self.fire(things) == (0, nil))
        try await things.setTrigger(caller: alice.caller, thingID: thing.id, triggerID: trigger.triggerID, enabled: true)
        #expect(
            try await things.trigger(caller: alice.caller, thingID: thing.id, triggerID: trigger.triggerID).nextFire
                == Self.ms("2026-11-29T07:15:00Z")
        )
        #expect(try await Self.fire(things) == (0, Self.ms("2026-11-29T07:15:00Z")))
        #expect(try await Self.results(things, alice.caller, thing.id, trigger.triggerID).isEmpty)
    }

    @Test func resultsArePagedNewestFirstForOwnersTheThingAndAdmins() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let stranger = try await world.user("stranger")
        let thing = try await world.onboard(alice.caller, alice.id)
        let trigger = try await world.things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            predicate: .states(condition: ["type": "all"], triggersWhen: .conditionTrue),
            action: .notify(parameters: nil)
        )
        for n in 1...5 {
            _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: ["n": .int(Int64(n))], timestamp: nil)
        }
        let first = try await world.things.triggerResults(
            caller: alice.caller,
            thingID: thing.id,
            triggerID: trigger.triggerID,
            limit: 2,
            paginationKey: nil
        )
        #expect(first.results.count == 2)
        var all = first.results
        var key = first.nextPaginationKey
        while let next = key {
            let page = try await world.things.triggerResults(
                caller: alice.caller,
                thingID: thing.id,
                triggerID: trigger.triggerID,
                limit: 2,
                paginationKey: next
            )
            all += page.results
            key = page.nextPaginationKey
        }
        #expect(all.count == 5)
        #expect(all.map(\.firedAt) == all.map(\.firedAt).sorted(by: >))
        #expect(try await Self.results(world.things, thing.caller, thing.id, trigger.triggerID).count == 5)
        #expect(try await Self.results(world.things, world.admin, thing.id, trigger.triggerID).count == 5)
        #expect(await self.code { _ = try await Self.results(world.things, stranger.caller, thing.id, trigger.triggerID) } == .permissionDenied)
        #expect(
            await self.code {
                _ = try await world.things.triggerResults(
                    caller: alice.caller,
                    thingID: thing.id,
                    triggerID: trigger.triggerID,
                    limit: 0,
                    paginationKey: nil
                )
            } == .invalidInput
        )
    }

    @Test func badPredicatesTextsAndParametersAreRefused() async throws {
        let (world, clock, things, alice, thing) = try await Self.aliceWithAThing(at: Self.ms("2026-11-29T06:59:00Z"))
        defer { world.temp.remove() }
        func create(_ predicate: TriggerPredicate, _ action: TriggerAction = .notify(parameters: nil), title: String? = nil) async -> GuildError.Code?
        {
            await self.code {
                _ = try await things.createTrigger(caller: alice.caller, thingID: thing.id, predicate: predicate, action: action, title: title)
            }
        }
        #expect(await create(.scheduleOnce(at: clock.now)) == .invalidInput)
        #expect(await create(.scheduleOnce(at: clock.now - 1)) == .invalidInput)
        #expect(await create(.scheduleOnce(at: clock.now + 1), title: String(repeating: "t", count: 51)) == .invalidInput)
        #expect(await create(.scheduleOnce(at: clock.now + 1), .notify(parameters: "not an object")) == .invalidInput)
        let big: JSONValue = ["blob": .string(String(repeating: "x", count: ThingService.maximumNotifyParametersBytes))]
        #expect(await create(.scheduleOnce(at: clock.now + 1), .notify(parameters: big)) == .invalidInput)
        #expect(await create(.scheduleOnce(at: clock.now + 1)) == nil)
        #expect(try await things.triggers(caller: alice.caller, thingID: thing.id).count == 1)
    }
}
