import Foundation
import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// Object events in the log: each names who could read what changed at the time, and replay shows a user
/// only those; a body never reaches anyone else.
struct ObjectEventTests {
    @Test func replayShowsObjectEventsOnlyToThoseWhoCouldReadThem() async throws {
        let world = try await ObjectServiceTests.World()
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let member = try await world.user("member")
        let (group, _) = try await world.groups.create(
            caller: alice.caller,
            name: "G",
            groupID: "g1",
            type: .basic,
            members: [.init(userID: member.id)]
        )
        let groupScope = ObjectScope.group(group.id)

        try await world.create(alice.caller, .user(alice.id), "diary", ["secret": "alice-only"])
        try await world.create(alice.caller, .app, "news", ["headline": "for-everyone"])
        try await world.create(alice.caller, groupScope, "box", ["note": "members-before"])
        _ = try await world.groups.removeMembers(caller: alice.caller, groupID: group.id, userIDs: [member.id])
        try await world.create(alice.caller, groupScope, "box", ["note": "members-after"])
        // Bob is let into Alice's diary afterwards: earlier events stay hidden, later ones reach him.
        _ = try await world.grant(alice.caller, ACLTarget(scope: .user(alice.id), bucket: "diary"), [("READ_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")])
        try await world.create(alice.caller, .user(alice.id), "diary", ["secret": "bob-may-read"])

        let head = try await world.temp.store.eventSnapshot(userID: nil).head
        func bodies(_ userID: String) async throws -> [String] {
            try await world.temp.store.replay(userID: userID, after: 0, through: head, limit: 1000)
                .filter { $0.topic.area == "bucket" }
                .map { String(decoding: $0.json, as: UTF8.self) }
        }
        let seenByBob = try await bodies(bob.id).joined()
        #expect(seenByBob.contains("for-everyone"))
        #expect(seenByBob.contains("bob-may-read"))
        #expect(!seenByBob.contains("alice-only"))
        #expect(!seenByBob.contains("members-"))
        let seenByMember = try await bodies(member.id).joined()
        #expect(seenByMember.contains("members-before"))
        #expect(!seenByMember.contains("members-after"))
        #expect(!seenByMember.contains("alice-only"))
        let seenByAlice = try await bodies(alice.id).joined()
        for text in ["alice-only", "for-everyone", "members-before", "members-after", "bob-may-read"] {
            #expect(seenByAlice.contains(text), "\(text)")
        }
        // The ACL change itself reached Bob (he can read after it) but not the member.
        #expect(try await bodies(bob.id).contains { $0.contains("\"kind\":\"aclChanged\"") })
    }
}
