import Foundation
import GuildJSON
import Testing

@testable import GuildCore

/// Thing-IF's trigger predicates as guildd reads, stores and evaluates them.
struct TriggerPredicateTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let utc = TimeZone(identifier: "UTC")!

    @Test func aStatesPredicateDefaultsToFalseToTrueAndKeepsItsCondition() throws {
        let condition: JSONValue = ["type": "range", "field": "temperature", "lowerLimit": 30]
        let predicate = try TriggerPredicate(json: ["eventSource": "STATES", "condition": condition], defaultTimeZone: Self.berlin)
        #expect(predicate == .states(condition: condition, triggersWhen: .conditionFalseToTrue))
        #expect(predicate.json == ["eventSource": "STATES", "condition": condition, "triggersWhen": "CONDITION_FALSE_TO_TRUE"])
        #expect(!predicate.isSchedule)
        #expect(predicate.nextFire(after: 0) == nil)
        // What it stores reads back the same.
        #expect(try TriggerPredicate(json: predicate.json, defaultTimeZone: Self.utc) == predicate)
    }

    @Test func aScheduleWithoutATimeZoneIsStoredInTheDaemonsZone() throws {
        let predicate = try TriggerPredicate(json: ["eventSource": "SCHEDULE", "schedule": "0 7 * * *"], defaultTimeZone: Self.berlin)
        #expect(predicate.json == ["eventSource": "SCHEDULE", "schedule": "0 7 * * *", "timeZone": "Europe/Berlin"])
        // Read back under another default, it keeps Berlin's times.
        let reread = try TriggerPredicate(json: predicate.json, defaultTimeZone: Self.utc)
        #expect(reread == predicate)
        #expect(reread.nextFire(after: CronScheduleTests.ms("2026-11-29T00:00:00Z")) == CronScheduleTests.ms("2026-11-29T06:00:00Z"))
    }

    @Test func aNamedTimeZoneWins() throws {
        let predicate = try TriggerPredicate(
            json: ["eventSource": "SCHEDULE", "schedule": "0 7 * * *", "timeZone": "Asia/Tokyo"],
            defaultTimeZone: Self.berlin
        )
        #expect(predicate.nextFire(after: CronScheduleTests.ms("2026-11-29T00:00:00Z")) == CronScheduleTests.ms("2026-11-29T22:00:00Z"))
    }

    /// The zone is stated as it was given, and survives storage: Foundation on Linux names UTC "GMT".
    @Test func aTimeZoneIsStatedAsGiven() throws {
        let predicate = try TriggerPredicate(
            json: ["eventSource": "SCHEDULE", "schedule": "0 7 * * *", "timeZone": "UTC"],
            defaultTimeZone: Self.berlin
        )
        #expect(predicate.json["timeZone"] == "UTC")
        #expect(try TriggerPredicate(stored: predicate.json).json["timeZone"] == "UTC")
    }

    @Test func aSingleTimeIsDueOnceAndThenNever() throws {
        let predicate = try TriggerPredicate(json: ["eventSource": "SCHEDULE_ONCE", "scheduleAt": 1_000_000], defaultTimeZone: Self.utc)
        #expect(predicate.isSchedule)
        #expect(predicate.nextFire(after: 999_999) == 1_000_000)
        #expect(predicate.nextFire(after: 1_000_000) == nil)
    }

    static let refused: [(JSONValue, String)] = [
        ("STATES", "predicate"),
        (["condition": ["type": "all"]], "predicate.eventSource"),
        (["eventSource": "SERVER_CODE"], "predicate.eventSource"),
        (["eventSource": "STATES"], "predicate.condition"),
        (["eventSource": "STATES", "condition": ["type": "eq"]], "predicate.condition"),
        (["eventSource": "STATES", "condition": ["type": "all"], "triggersWhen": "SOMETIMES"], "predicate.triggersWhen"),
        (["eventSource": "STATES", "condition": ["type": "all"], "schedule": "* * * * *"], "predicate.schedule"),
        (["eventSource": "SCHEDULE"], "predicate.schedule"),
        (["eventSource": "SCHEDULE", "schedule": "0 7 * *"], "predicate.schedule"),
        (["eventSource": "SCHEDULE", "schedule": "0 7 * * *", "timeZone": "Mars/Olympus"], "predicate.timeZone"),
        (["eventSource": "SCHEDULE_ONCE"], "predicate.scheduleAt"),
        (["eventSource": "SCHEDULE_ONCE", "scheduleAt": "tomorrow"], "predicate.scheduleAt"),
        (["eventSource": "SCHEDULE_ONCE", "scheduleAt": -5], "predicate.scheduleAt"),
    ]

    @Test(arguments: 0..<Self.refused.count)
    func aMalformedPredicateNamesTheMemberAtFault(index: Int) {
        let (json, field) = Self.refused[index]
        do {
            _ = try TriggerPredicate(json: json, defaultTimeZone: Self.utc)
            Issue.record("\(json) was accepted")
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.field == field, "\(json): \(error)")
        }
    }

    @Test func eachModeFiresOnItsTransitions() {
        // (was, now) for the four transitions.
        let transitions = [(false, false), (false, true), (true, true), (true, false)]
        #expect(transitions.map { TriggersWhen.conditionTrue.fires(was: $0.0, now: $0.1) } == [false, true, true, false])
        #expect(transitions.map { TriggersWhen.conditionFalseToTrue.fires(was: $0.0, now: $0.1) } == [false, true, false, false])
        #expect(transitions.map { TriggersWhen.conditionChanged.fires(was: $0.0, now: $0.1) } == [false, true, false, true])
    }

    @Test func aDueTimeFiresWithinTheCatchUpWindowOnly() {
        let catchUp = ScheduleCatchUp(windowMilliseconds: 60_000)
        #expect(catchUp.fires(due: 1_000, now: 1_000))
        #expect(catchUp.fires(due: 1_000, now: 61_000))
        #expect(!catchUp.fires(due: 1_000, now: 61_001))
        #expect(ScheduleCatchUp.standard.windowMilliseconds == 900_000)
    }
}
