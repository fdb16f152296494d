import GuildCore
import GuildJSON
import Testing

/// Compiled state conditions, kept by their stored predicate text.
struct TriggerConditionsTests {
    static func stored(_ json: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        json.writeJSON(to: &bytes)
        return bytes
    }

    static let power = Self.stored([
        "eventSource": "STATES", "condition": ["type": "eq", "field": "power", "value": true], "triggersWhen": "CONDITION_CHANGED",
    ])
    static let schedule = Self.stored(["eventSource": "SCHEDULE", "schedule": "0 7 * * *", "timeZone": "UTC"])

    @Test func aStatePredicateCompilesOnceAndOthersAreNil() throws {
        let conditions = TriggerConditions()
        let first = conditions.conditions(of: [Self.power, Self.schedule, Array("{not json".utf8), Self.power])
        #expect(first.map { $0 == nil } == [false, true, true, false])
        #expect(first[0]?.mode == .conditionChanged)
        #expect(first[0]?.clause.matches(["power": true]) == true)
        #expect(first[0]?.clause.matches(["power": false]) == false)
        // Three distinct texts, each parsed once and kept.
        #expect(conditions.count == 3)
        #expect(conditions.conditions(of: [Self.power]).first??.clause.matches(["power": true]) == true)
        #expect(conditions.count == 3)
    }

    @Test func pastItsCapacityTheCacheStartsOver() throws {
        let conditions = TriggerConditions(capacity: 2)
        _ = conditions.conditions(of: [Self.power, Self.schedule])
        #expect(conditions.count == 2)
        let other = Self.stored(["eventSource": "STATES", "condition": ["type": "all"]])
        let found = conditions.conditions(of: [other])
        #expect(found.first??.clause.matches([:]) == true)
        #expect(conditions.count == 1)
    }
}
