import GuildCore
import GuildJSON
import Testing

/// Each thing's compiled triggers, kept by its trigger revision.
struct ThingTriggerSetsTests {
    static func trigger(_ id: String) throws -> ThingTriggerSets.Trigger {
        let compiled = try #require(TriggerConditions().conditions(of: [TriggerConditionsTests.power]).first ?? nil)
        return ThingTriggerSets.Trigger(triggerID: id, enabled: true, condition: compiled)
    }

    @Test func aSetIsFoundUnderItsRevisionOnly() throws {
        let sets = ThingTriggerSets()
        #expect(sets.triggers(thingID: "th.1", revision: 0) == nil)
        sets.keep([try Self.trigger("tr.1")], thingID: "th.1", revision: 7)
        #expect(sets.triggers(thingID: "th.1", revision: 7)?.map(\.triggerID) == ["tr.1"])
        #expect(sets.triggers(thingID: "th.1", revision: 8) == nil)
        #expect(sets.triggers(thingID: "th.2", revision: 7) == nil)
        // A thing without triggers is kept too (as an empty set), and a later read replaces what was kept.
        sets.keep([], thingID: "th.2", revision: 0)
        #expect(sets.triggers(thingID: "th.2", revision: 0)?.isEmpty == true)
        sets.keep([try Self.trigger("tr.1"), try Self.trigger("tr.2")], thingID: "th.1", revision: 9)
        #expect(sets.triggers(thingID: "th.1", revision: 7) == nil)
        #expect(sets.triggers(thingID: "th.1", revision: 9)?.map(\.triggerID) == ["tr.1", "tr.2"])
        #expect(sets.count == 2)
    }

    @Test func pastItsCapacityInTriggersTheSetsStartOver() throws {
        // Room for 5: a set counts its triggers plus one.
        let sets = ThingTriggerSets(capacity: 5)
        sets.keep([try Self.trigger("tr.1"), try Self.trigger("tr.2")], thingID: "th.1", revision: 1)
        sets.keep([], thingID: "th.2", revision: 0)
        #expect(sets.count == 2)
        // Replacing th.1's set frees what it held first: 1 + 3 fits in 5.
        sets.keep([try Self.trigger("tr.3"), try Self.trigger("tr.4")], thingID: "th.1", revision: 2)
        #expect(sets.count == 2)
        // Two more do not fit: everything else goes.
        sets.keep([try Self.trigger("tr.5")], thingID: "th.3", revision: 3)
        #expect(sets.count == 1)
        #expect(sets.triggers(thingID: "th.3", revision: 3)?.map(\.triggerID) == ["tr.5"])
        #expect(sets.triggers(thingID: "th.1", revision: 2) == nil)
    }
}
