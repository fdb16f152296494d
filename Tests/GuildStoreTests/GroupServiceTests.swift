import Foundation
import GuildCore
import GuildJSON
import GuildProtocol
import GuildServer
import GuildStore
import GuildTestSupport
import Synchronization
import Testing

/// Kii's group rules (protocol/users-and-groups.md, Groups) through the real store, with explicit callers.
struct GroupServiceTests {
    struct World {
        let temp: TemporaryStore
        let users: UserService
        let groups: GroupService
        let events: EventRecorder
        /// The daemon's cache of listed groups (`user.memberOfGroups`), on this store's commits.
        let lists: GroupSummaryCache

        init() async throws {
            self.temp = try TemporaryStore()
            self.users = try await makeService(self.temp.store)
            self.groups = GroupService(store: self.temp.store)
            self.events = EventRecorder(self.temp.store)
            self.lists = GroupSummaryCache.attached(to: self.temp.store)
        }

        /// A group list as `user.memberOfGroups` (or `user.ownerOfGroups`) writes it.
        func groupListJSON(caller: Caller, userID: String?, ownedOnly: Bool) async throws -> [UInt8] {
            try await self.lists.listJSON(self.groups, caller: caller, userID: userID, ownedOnly: ownedOnly)
        }

        func user(_ name: String) async throws -> Caller {
            let (user, session) = try await self.users.register(identity: .init(username: name), password: "pass", displayName: name, fields: nil)
            return caller(session, user)
        }

        var admin: Caller { Caller(peer: .init(uid: 0, gid: 0, pid: 1), isAdmin: true) }
    }

    /// Every event the store publishes; reading waits for the fan-out queue to hand over what is committed.
    final class EventRecorder: Sendable {
        /// A committed group event.
        struct Recorded: Sendable {
            let seq: Int64
            let json: [UInt8]
            let event: GroupEvent
        }

        let events = Mutex<[Recorded]>([])
        let store: SQLiteStore

        init(_ store: SQLiteStore) {
            self.store = store
            store.onCommittedEvents { [weak self] batch in
                let recorded = batch.compactMap { committed in
                    committed.groupEvent.map { Recorded(seq: committed.seq, json: committed.json, event: $0) }
                }
                self?.events.withLock { $0.append(contentsOf: recorded) }
            }
        }

        var all: [Recorded] {
            self.store.waitForPublishedEvents()
            return self.events.withLock { $0 }
        }
    }

    @Test func createReportsUnknownMembersAndValidatesIDs() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let (group, notFound) = try await world.groups.create(
            caller: alice,
            name: "Sales Div.",
            groupID: "sales-div",
            type: .basic,
            members: [.init(userID: bob.session!.user.id), "nope"]
        )
        #expect(notFound == ["nope"])
        #expect(group.ownerID == alice.session!.user.id)
        #expect(group.memberCount == 2)
        await #expect(throws: GuildError(.groupAlreadyExists, "")) {
            try await world.groups.create(caller: bob, name: "Again", groupID: "sales-div", type: .basic, members: [])
        }
        for bad in ["Has Caps", String(repeating: "a", count: 31), "spa ce", ""] {
            await #expect(throws: GuildError(.invalidInput, "")) {
                try await world.groups.create(caller: alice, name: "x", groupID: bad, type: .basic, members: [])
            }
        }
        await #expect(throws: GuildError(.invalidInput, "")) {
            try await world.groups.create(caller: alice, name: String(repeating: "n", count: 191), groupID: nil, type: .basic, members: [])
        }
        // IM types follow Tencent's id rules and codes instead.
        let im = try await world.groups.create(caller: alice, name: "IM", groupID: nil, type: .public, members: [])
        #expect(im.group.id.hasPrefix("@TGS#") && im.group.addOption == .auth)
        await #expect(throws: GuildError(.invalidGroupID, "")) {
            try await world.groups.create(caller: alice, name: "IM", groupID: "@TGS#mine", type: .public, members: [])
        }
        let generated = try await world.groups.create(caller: alice, name: "Generated", groupID: nil, type: .basic, members: [])
        try GroupRules.validateGroupID(generated.group.id)
    }

    @Test func membershipRulesFollowKii() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let carol = try await world.user("carol")
        let (bobID, carolID) = (bob.session!.user.id, carol.session!.user.id)
        _ = try await world.groups.create(caller: alice, name: "G", groupID: "g", type: .basic, members: [.init(userID: bobID)])

        // Re-adding a member succeeds (Kii: 204), and only the owner or an admin may add.
        #expect(
            try await world.groups.addMembers(caller: alice, groupID: "g", userIDs: [bobID, "ghost"]) == [
                MemberOutcome(userID: bobID, result: .succ), MemberOutcome(userID: "ghost", result: .fail, reason: "USER_NOT_FOUND"),
            ]
        )
        await #expect(throws: GuildError(.permissionDenied, "")) {
            try await world.groups.addMembers(caller: bob, groupID: "g", userIDs: [carolID])
        }
        #expect(try await world.groups.addMembers(caller: world.admin, groupID: "g", userIDs: [carolID]).first?.result == .succ)

        // A plain member cannot remove another; removing a non-member fails for that user; self-removal works.
        #expect(try await world.groups.removeMembers(caller: bob, groupID: "g", userIDs: [carolID]).first?.reason == "PERMISSION_DENIED")
        #expect(try await world.groups.removeMembers(caller: alice, groupID: "g", userIDs: ["ghost"]).first?.reason == "NOT_A_MEMBER")
        #expect(try await world.groups.removeMembers(caller: bob, groupID: "g", userIDs: [bobID]).first?.result == .succ)
        // The owner cannot leave without handing over.
        #expect(
            try await world.groups.removeMembers(caller: alice, groupID: "g", userIDs: [alice.session!.user.id]).first?.reason == "OWNER_CANNOT_LEAVE"
        )

        // Non-members may read the group and its members.
        _ = try await world.groups.get(caller: bob, groupID: "g")
        let page = try await world.groups.members(caller: bob, groupID: "g", cursor: 0, limit: 10)
        #expect(Set(page.members.map(\.userID)) == [alice.session!.user.id, carolID])
        #expect(try await world.temp.store.read { try $0.groups.groupInvariantViolations() } == [])
    }

    @Test func ownerChangeToANonMemberMakesThemAMemberAndKeepsTheOldOwner() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let bobID = bob.session!.user.id
        _ = try await world.groups.create(caller: alice, name: "G", groupID: "g", type: .basic, members: [])
        await #expect(throws: GuildError(.permissionDenied, "")) {
            try await world.groups.changeOwner(caller: bob, groupID: "g", userID: bobID)
        }
        let changed = try await world.groups.changeOwner(caller: alice, groupID: "g", userID: bobID)
        #expect(changed.ownerID == bobID)
        #expect(changed.memberCount == 2)
        #expect(try await world.groups.memberOf(caller: alice, userID: nil).map(\.id) == ["g"])
        #expect(try await world.groups.ownerOf(caller: alice, userID: nil).isEmpty)
        #expect(try await world.groups.ownerOf(caller: bob, userID: nil).map(\.id) == ["g"])
        let info = world.events.all.last
        #expect(info?.event.kind == .groupInfoChanged)
        #expect(info?.event.changes?["owner"] == .string(bobID))
        #expect(try await world.temp.store.read { try $0.groups.groupInvariantViolations() } == [])
    }

    @Test func deletingTheSoleOwnerLeavesAnOwnerlessEmptyGroupOnlyAnAdminCanFix() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        _ = try await world.groups.create(caller: alice, name: "Solo", groupID: "solo", type: .basic, members: [])
        _ = try await world.groups.create(
            caller: alice,
            name: "Shared",
            groupID: "shared",
            type: .basic,
            members: [.init(userID: bob.session!.user.id)]
        )
        _ = try await world.users.delete(caller: alice, userID: nil)
        let solo = try await world.groups.get(caller: bob, groupID: "solo")
        #expect(solo.ownerID == nil)
        #expect(try await world.groups.members(caller: bob, groupID: "solo", cursor: 0, limit: 10).members.isEmpty)
        let shared = try await world.groups.get(caller: bob, groupID: "shared")
        #expect(shared.ownerID == nil)
        #expect(shared.memberCount == 1)
        await #expect(throws: GuildError(.permissionDenied, "")) {
            try await world.groups.changeOwner(caller: bob, groupID: "shared", userID: bob.session!.user.id)
        }
        #expect(
            try await world.groups.changeOwner(caller: world.admin, groupID: "shared", userID: bob.session!.user.id).ownerID == bob.session!.user.id
        )
        let kinds = world.events.all.suffix(4).map(\.event.kind)
        #expect(kinds.contains(.memberLeave))
        #expect(try await world.temp.store.read { try $0.groups.groupInvariantViolations() } == [])
    }

    @Test func eventsAreGapFreeAndRolledBackOperationsLeaveNoTrace() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        _ = try await world.groups.create(caller: alice, name: "G", groupID: "g", type: .basic, members: [])
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    // Half of these fail (bob may not rename) and must not consume a sequence number.
                    _ = try? await world.groups.rename(caller: index.isMultiple(of: 2) ? alice : bob, groupID: "g", name: "n\(index)")
                }
            }
        }
        let seqs = world.events.all.map(\.seq)
        #expect(seqs == Array(1...Int64(seqs.count)))
        #expect(seqs.count == 51)
        let replayed = try await world.temp.store.replay(userID: nil, after: 0, through: 1000, limit: 1000)
        #expect(replayed.map(\.seq) == seqs)
        #expect(replayed.map(\.json) == world.events.all.map(\.json))
    }

    @Test func invariantsHoldUnderConcurrentChurn() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        var callers: [Caller] = []
        for index in 0..<12 { callers.append(try await world.user("user\(index)")) }
        let ids = callers.map { $0.session!.user.id }
        for index in 0..<4 {
            _ = try await world.groups.create(
                caller: callers[index],
                name: "G\(index)",
                groupID: "g\(index)",
                type: .basic,
                members: ids.prefix(6).map { GroupService.InitialMember(userID: $0) }
            )
        }
        let snapshot = callers
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    for _ in 0..<40 {
                        let groupID = "g\(Int.random(in: 0..<4, using: &generator))"
                        let actor = snapshot.randomElement(using: &generator)!
                        let target = ids.randomElement(using: &generator)!
                        switch Int.random(in: 0..<5, using: &generator) {
                        case 0: _ = try? await world.groups.addMembers(caller: world.admin, groupID: groupID, userIDs: [target])
                        case 1: _ = try? await world.groups.removeMembers(caller: world.admin, groupID: groupID, userIDs: [target])
                        case 2: _ = try? await world.groups.changeOwner(caller: world.admin, groupID: groupID, userID: target)
                        case 3: _ = try? await world.groups.removeMembers(caller: actor, groupID: groupID, userIDs: [actor.session!.user.id])
                        default: _ = try? await world.groups.rename(caller: actor, groupID: groupID, name: "w\(worker)")
                        }
                    }
                }
            }
            group.addTask {
                // Users vanish meanwhile; their groups may become ownerless.
                for index in 8..<12 { _ = try? await world.users.delete(caller: snapshot[index], userID: nil) }
            }
        }
        #expect(try await world.temp.store.read { try $0.groups.groupInvariantViolations() } == [])
        #expect(try await world.temp.store.integrityCheck() == ["ok"])
        for caller in callers.prefix(8) {
            let member = Set(try await world.groups.memberOf(caller: caller, userID: nil).map(\.id))
            let owner = Set(try await world.groups.ownerOf(caller: caller, userID: nil).map(\.id))
            #expect(owner.isSubset(of: member))
            for groupID in member {
                let page = try await world.groups.members(caller: caller, groupID: groupID, cursor: 0, limit: 200)
                #expect(page.members.contains { $0.userID == caller.session!.user.id })
            }
        }
    }

    @Test func pruningExpiresOldCursors() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        _ = try await world.groups.create(caller: alice, name: "G", groupID: "g", type: .basic, members: [])
        for index in 0..<20 { _ = try await world.groups.rename(caller: alice, groupID: "g", name: "n\(index)") }
        #expect(try await world.temp.store.eventSnapshot(userID: nil).oldest == 1)
        // 16 events in batches of 5: three full batches, each followed by a rest, then one event and an empty batch.
        let rests = Mutex(0)
        let pruned = try await world.temp.store.pruneEvents(
            keepCount: 5,
            maxAgeMilliseconds: .max / 2,
            now: 0,
            batchSize: 5,
            pause: { _ in rests.withLock { $0 += 1 } }
        )
        #expect(pruned == 16)
        #expect(rests.withLock { $0 } == 3)
        let snapshot = try await world.temp.store.eventSnapshot(userID: alice.session!.user.id)
        #expect(snapshot.head == 21)
        #expect(snapshot.oldest == 17)
        #expect(snapshot.groups == ["g"])
        // Sequence numbers are never reused after pruning.
        _ = try await world.groups.rename(caller: alice, groupID: "g", name: "after")
        #expect(world.events.all.last?.seq == 22)
    }

    @Test func groupListJSONSaysWhatTheGroupsSay() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        _ = try await world.groups.create(
            caller: alice,
            name: "Sales \"Div.\"",
            groupID: "sales",
            type: .basic,
            members: [.init(userID: bob.session!.user.id)]
        )
        _ = try await world.groups.create(caller: bob, name: "Tennis Club", groupID: "tennis", type: .basic, members: [])
        for (ownedOnly, expected) in [(false, ["sales", "tennis"]), (true, ["tennis"])] {
            let json = try await world.groupListJSON(caller: bob, userID: nil, ownedOnly: ownedOnly)
            let decoded = try RPCCoding.decode([GroupInfo].self, from: json)
            let groups =
                ownedOnly ? try await world.groups.ownerOf(caller: bob, userID: nil) : try await world.groups.memberOf(caller: bob, userID: nil)
            #expect(decoded.map(\.groupID) == expected)
            #expect(
                decoded
                    == groups.map {
                        GroupInfo(
                            groupID: $0.id,
                            name: $0.name,
                            type: $0.type.rawValue,
                            owner: $0.ownerID,
                            memberCount: $0.memberCount,
                            createdAt: $0.createdAt,
                            modifiedAt: $0.modifiedAt
                        )
                    }
            )
        }
        #expect(try await world.groupListJSON(caller: world.admin, userID: "nobody", ownedOnly: false) == Array("[]".utf8))
    }
}

/// `user.memberOfGroups` is written straight from SQLite's column buffers; it must say what encoding the groups
/// with `JSONEncoder` says, for any text.
struct GroupListJSONTests {
    @Test func theFastListIsTheEncodedList() async throws {
        let world = try await GroupServiceTests.World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        for (index, name) in ["Plain", "Quote \" and \\ back", "Tab\tnew\nline \u{1}", "名前 ü /slash/"].enumerated() {
            _ = try await world.groups.create(
                caller: alice,
                name: name,
                groupID: "g\(index)",
                type: .basic,
                members: [.init(userID: bob.session!.user.id)]
            )
        }
        _ = try await world.groups.create(
            caller: world.admin,
            name: "Ownerless",
            groupID: "none",
            type: .basic,
            members: [.init(userID: bob.session!.user.id)]
        )
        try await Self.expectListsAgree(world, [alice, bob])
        // Lists are cached per group: every kind of change shows in the next list.
        let carol = try await world.user("carol")
        _ = try await world.groups.rename(caller: alice, groupID: "g0", name: "Renamed")
        _ = try await world.groups.addMembers(caller: alice, groupID: "g1", userIDs: [carol.session!.user.id])
        _ = try await world.groups.changeOwner(caller: alice, groupID: "g2", userID: bob.session!.user.id)
        try await world.groups.delete(caller: alice, groupID: "g3")
        try await Self.expectListsAgree(world, [alice, bob, carol])
        // Lists read while writes commit never keep a stale summary.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 0..<100 { _ = try await world.groups.rename(caller: alice, groupID: "g0", name: "Round \(round)") }
            }
            group.addTask {
                for _ in 0..<200 { _ = try await world.groupListJSON(caller: bob, userID: nil, ownedOnly: false) }
            }
            try await group.waitForAll()
        }
        try await Self.expectListsAgree(world, [alice, bob, carol])
        let last = try JSONDecoder().decode(
            [GroupInfoShape].self,
            from: Data(try await world.groupListJSON(caller: bob, userID: nil, ownedOnly: false))
        )
        #expect(last.first { $0.groupID == "g0" }?.name == "Round 99")
    }

    static func expectListsAgree(_ world: GroupServiceTests.World, _ callers: [Caller]) async throws {
        for caller in callers {
            for ownedOnly in [false, true] {
                let fast = try await world.groupListJSON(caller: caller, userID: nil, ownedOnly: ownedOnly)
                let groups =
                    try await ownedOnly ? world.groups.ownerOf(caller: caller, userID: nil) : world.groups.memberOf(caller: caller, userID: nil)
                let decoded = try JSONDecoder().decode([GroupInfoShape].self, from: Data(fast))
                #expect(decoded == groups.map(GroupInfoShape.init))
            }
        }
    }

    struct GroupInfoShape: Codable, Equatable {
        var groupID: String
        var name: String
        var type: String
        var owner: String?
        var memberCount: Int
        var createdAt: Int64
        var modifiedAt: Int64

        init(_ group: Group) {
            (self.groupID, self.name, self.type, self.owner) = (group.id, group.name, group.type.rawValue, group.ownerID)
            (self.memberCount, self.createdAt, self.modifiedAt) = (group.memberCount, group.createdAt, group.modifiedAt)
        }
    }
}
