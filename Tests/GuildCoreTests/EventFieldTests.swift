import GuildCore
import GuildJSON
import Testing

/// Each area declares its events' members once (``EventAudience/fields``); the wire type and schemas are
/// generated from the declarations, and each area's encoder is checked against them.
@Suite struct EventFieldTests {
    @Test(arguments: EventAreas.declared.map(\.area))
    func anAreasDeclarationsNameItsOwnKindsAndEachMemberOnce(area: String) throws {
        let audience = try #require(EventAreas.declared.first { $0.area == area })
        #expect(!audience.kinds.isEmpty)
        let names = audience.fields.map(\.name)
        #expect(Set(names).count == names.count, "\(area) declares a member twice")
        #expect(Set(names).isDisjoint(with: EventField.common.map(\.name)), "\(area) redeclares a common member")
        for field in audience.fields {
            #expect(Set(field.kinds).isSubset(of: audience.kinds), "\(area).\(field.name) names a kind the area does not have")
            #expect(!field.summary.isEmpty)
        }
    }

    @Test func areasThatShareAMemberNameGiveItOneShape() {
        var shapes: [String: EventField.Shape] = [:]
        for field in EventAreas.declared.flatMap(\.fields) {
            #expect(shapes[field.name] == nil || shapes[field.name] == field.shape, "\(field.name) has two shapes")
            shapes[field.name] = field.shape
        }
        #expect(Set(EventAreas.declared.map(\.area)) == ["group", "bucket", "thing"])
        #expect(EventAreas.kinds.count == Set(EventAreas.kinds).count, "two areas declare one kind")
    }

    @Test func violationsNameAnUndeclaredMemberAndAMissingOne() {
        let things = ThingEventAudience()
        let received = ["kind", "time", "topic", "thingID", "commandID", "actions", "issuer", "schema", "schemaVersion"]
        #expect(things.violations(members: received, kind: "commandReceived").isEmpty)
        #expect(
            things.violations(members: received + ["colour"], kind: "commandReceived") == ["thing event commandReceived has undeclared member colour"]
        )
        #expect(
            things.violations(members: received.filter { $0 != "issuer" }, kind: "commandReceived") == ["thing event commandReceived lacks issuer"]
        )
        // A member only some kinds always have is not required of the others.
        #expect(things.violations(members: ["kind", "time", "topic", "thingID"], kind: "thingConnected").isEmpty)
        #expect(things.violations(members: ["kind", "time", "topic", "commandID"], kind: "commandResult").isEmpty)
    }

    @Test func eachAreasEncodedEventsHoldOnlyTheirDeclaredMembers() throws {
        func members(_ body: [UInt8]) throws -> [String] {
            guard case .object(let members) = try body.withUnsafeBytes({ try JSONValue(parsing: $0) }) else { return [] }
            return Array(members.keys)
        }
        let group = GroupEvent(kind: .groupInfoChanged, groupID: "g", actor: "u", byAdmin: true, users: ["u"], changes: ["name": "n"], time: 1)
        #expect(GroupEventAudience().violations(members: try members(group.encodeBody()), kind: "groupInfoChanged").isEmpty)
        let object = ObjectEvent(
            kind: .objectCreated,
            scope: .app,
            bucket: "b",
            objectID: "o",
            object: ["x": 1],
            actor: "u",
            time: 1,
            readers: .init()
        )
        #expect(ObjectEventAudience().violations(members: try members(object.encodeBody()), kind: "objectCreated").isEmpty)
        let state = ThingEvent(kind: .thingStateChanged, thingID: "t", time: 1, audience: .init(), members: ["state": [:], "timestamp": 1])
        #expect(ThingEventAudience().violations(members: try members(state.encodeBody()), kind: "thingStateChanged").isEmpty)
    }
}
