import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Schedules through the real daemon (issue 42, item 1): guildd's things' clock put just before a due time
/// (hidden `--test-clock-start`), the firing seen in `trigger.results` and by the thing, and `kill -9` before and
/// after the due time: the time fires once, never twice.
@Suite(.endToEnd)
struct TriggerScheduleTests {
    static func ms(_ text: String) -> Int64 {
        Int64((ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970 * 1000).rounded())
    }

    /// Wall-clock ms now.
    static var wall: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A daemon whose things' clock starts at `start`; with the wall clock at its launch, so that the daemon's
    /// clock is at most `start + (wall - launched)` (it takes its offset a little after the launch).
    static func start(_ scratch: Scratch, clock start: Int64) async throws -> (daemon: Child, launched: Int64) {
        let launched = Self.wall
        let daemon = try await RealDaemon.start(scratch, ["--test-clock-start", "\(start)"], environment: ["TZ": "UTC"])
        return (daemon, launched)
    }

    static func results(_ client: GuildClient, _ thingID: String, _ triggerID: String) async throws -> [TriggerMethods.TriggerResult] {
        try await client.triggerResults(thingID, triggerID).results
    }

    @Test func aCronScheduleFiresAtItsTimeInTheDaemonsZone() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let seven = Self.ms("2026-11-29T07:00:00Z")
        // Made an hour before, whatever the set-up takes; then the daemon is started again 1.5 s before seven.
        var (daemon, _) = try await Self.start(scratch, clock: seven - 3_600_000)
        let fixture = try await ThingFlowTests.Fixture.make(scratch.socket)
        let created = try await fixture.owner.createTrigger(
            fixture.thingID,
            .init(predicate: ["eventSource": "SCHEDULE", "schedule": "0 7 * * *"], command: fixture.request([["turnPower": ["power": true]]]))
        )
        #expect(created.timeZone == "UTC")
        #expect(created.nextFireAt == seven)
        await fixture.owner.close()
        daemon.terminate()
        _ = await daemon.wait()

        (daemon, _) = try await Self.start(scratch, clock: seven - 1_500)
        defer { daemon.terminate() }
        let owner = try await GuildClient.connect(path: scratch.socket)
        _ = try await owner.call(SessionMethods.Authenticate.self, .init(accessToken: fixture.ownerToken))
        let agent = try await ThingAgent.connect(path: scratch.socket, thingID: fixture.thingID, accessToken: fixture.thingToken)
        var commands = agent.commands().makeAsyncIterator()
        let received = try #require(try await commands.next())
        #expect(received.firedByTriggerID == created.triggerID)
        let results = try await Self.results(owner, fixture.thingID, created.triggerID)
        #expect(results.count == 1)
        #expect(results.first?.eventSource == "SCHEDULE")
        #expect(results.first?.outcome == "COMMAND_SENT")
        #expect(results.first?.commandID == received.commandID)
        #expect(results.first?.dueAt == seven)
        #expect((results.first?.firedAt ?? 0) >= seven)
        #expect(try await owner.trigger(fixture.thingID, created.triggerID).nextFireAt == seven + 86_400_000)
        await agent.close()
        await owner.close()
    }

    /// `killedBeforeTheDueTime`: killed right after the trigger is made (its time at least 1.5 s ahead), so the
    /// restarted daemon fires it late; otherwise killed once the firing is in the results, so the restarted
    /// daemon must not fire it again.
    @Test(arguments: [true, false])
    func aKillNineAroundTheDueTimeFiresTheTimeOnce(killedBeforeTheDueTime: Bool) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let start = Self.ms("2026-11-29T06:59:00Z")
        let started = try await Self.start(scratch, clock: start)
        var daemon = started.daemon
        let launched = started.launched
        let fixture = try await ThingFlowTests.Fixture.make(scratch.socket)
        // At least 1.5 s ahead of the daemon's clock, whatever the set-up took.
        let due = start + (Self.wall - launched) + 1_500
        let created = try await fixture.owner.createTrigger(
            fixture.thingID,
            .init(predicate: ["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(due)], command: fixture.request(), title: "once")
        )
        #expect(created.nextFireAt == due)
        if !killedBeforeTheDueTime {
            let fired = try await Eventually.until { try await Self.results(fixture.owner, fixture.thingID, created.triggerID).count == 1 }
            #expect(fired)
        }
        await fixture.owner.close()
        daemon.signal(SIGKILL)
        _ = await daemon.wait()

        // Up again 20 s after the due time: within the catch-up window.
        (daemon, _) = try await Self.start(scratch, clock: due + 20_000)
        defer { daemon.terminate() }
        let owner = try await GuildClient.connect(path: scratch.socket)
        _ = try await owner.call(SessionMethods.Authenticate.self, .init(accessToken: fixture.ownerToken))
        #expect(try await Eventually.until { try await Self.results(owner, fixture.thingID, created.triggerID).count >= 1 })
        // Its time is used up, so nothing can fire it again; and it fired once.
        #expect(try await owner.trigger(fixture.thingID, created.triggerID).nextFireAt == nil)
        let results = try await Self.results(owner, fixture.thingID, created.triggerID)
        #expect(results.map(\.outcome) == ["COMMAND_SENT"])
        #expect(results.first?.dueAt == due)
        let sent = try await owner.call(CommandMethods.List.self, .init(thingID: fixture.thingID)).commands
            .filter { $0.firedByTriggerID == created.triggerID }
        #expect(sent.map(\.commandID) == results.compactMap(\.commandID))
        await owner.close()
    }

    /// 1,100 single times due at one instant, three of the runner's batches (500 a write): each fires once, with
    /// one `triggerFired` event and one result, wherever the batches split them.
    @Test func schedulesDueAtOneInstantFireOnceEachAcrossBatches() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let due = Self.ms("2026-11-29T07:00:00Z")
        var (daemon, _) = try await Self.start(scratch, clock: due - 3_600_000)
        let owner = try await GuildClient.connect(path: scratch.socket)
        let pseudo = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        var triggers: [(thingID: String, triggerID: String)] = []
        for index in 0..<11 {
            let thing = try await owner.onboardThing(vendorThingID: "lamp-\(index)", password: "pw", owner: "user:" + pseudo.user.userID)
            let spec = TriggerMethods.TriggerSpec(predicate: ["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(due)], triggersWhat: "NOTIFY")
            let created = try await owner.calls(TriggerMethods.Create.self, Array(repeating: .init(thingID: thing.thingID, spec), count: 100))
            triggers += try created.map { (thing.thingID, try $0.get().triggerID) }
        }
        await owner.close()
        daemon.terminate()
        _ = await daemon.wait()

        // Up again a second after the due time: all 1,100 are due at once.
        (daemon, _) = try await Self.start(scratch, clock: due + 1_000)
        defer { daemon.terminate() }
        let watcher = try await GuildClient.connect(path: scratch.socket)
        _ = try await watcher.call(SessionMethods.Authenticate.self, .init(accessToken: pseudo.accessToken))
        let subscription = try await watcher.subscribe(kinds: ["triggerFired"], since: 0)
        var fired: [String: Int] = [:]
        while fired.count < triggers.count {
            let event = try await ThingFlowTests.next("triggerFired", in: subscription.events, within: 120)
            fired[event.triggerID ?? "", default: 0] += 1
        }
        #expect(Set(fired.keys) == Set(triggers.map(\.triggerID)))
        #expect(fired.values.allSatisfy { $0 == 1 })
        // The durable side: one result each (asked 100 at a time, under the daemon's 256 in flight), its time used up.
        for start in stride(from: 0, to: triggers.count, by: 100) {
            let results = try await watcher.calls(
                TriggerMethods.Results.self,
                triggers[start..<min(start + 100, triggers.count)].map { .init(thingID: $0.thingID, triggerID: $0.triggerID) }
            )
            #expect(try results.allSatisfy { try $0.get().results.map(\.outcome) == ["NOTIFIED"] })
        }
        #expect(try await watcher.trigger(triggers[0].thingID, triggers[0].triggerID).nextFireAt == nil)
        await watcher.close()
    }

    @Test func aNotifyTriggerReachesASubscribedProgram() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let fixture = try await ThingFlowTests.Fixture.make(scratch.socket)
        let subscription = try await fixture.owner.subscribe(kinds: ["triggerFired"], since: nil)
        let created = try await fixture.owner.createTrigger(
            fixture.thingID,
            .init(
                predicate: [
                    "eventSource": "STATES", "condition": ["type": "eq", "field": "power", "value": true], "triggersWhen": "CONDITION_CHANGED",
                ],
                triggersWhat: "NOTIFY",
                parameters: ["scene": "evening"]
            )
        )
        let thing = try await GuildClient.connect(path: scratch.socket)
        _ = try await thing.call(SessionMethods.Authenticate.self, .init(accessToken: fixture.thingToken))
        _ = try await thing.call(ThingMethods.PutState.self, .init(thingID: fixture.thingID, state: ["power": true]))
        let event = try await ThingFlowTests.next("triggerFired", in: subscription.events, within: 60)
        #expect(event.triggerID == created.triggerID)
        #expect(event.thingID == fixture.thingID)
        let results = try await Self.results(fixture.owner, fixture.thingID, created.triggerID)
        #expect(results.map(\.outcome) == ["NOTIFIED"])
        await thing.close()
        await fixture.owner.close()
    }
}
