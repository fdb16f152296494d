import GuildCore
import GuildJSON
import GuildProtocol
import GuildStore
import GuildTestSupport
import Testing

/// Tencent IM's group rules (protocol/im-groups.md) through the real store, with explicit callers: the
/// easy-to-get-wrong cases (owner quits, joins, admins, invitations, transfers, paging, mutes, attributes,
/// dismissed ids), one test each, and the rest of the IM surface.
struct IMGroupServiceTests {
    /// Users, a store and a group service with a clock the test moves.
    struct World {
        let temp: TemporaryStore
        let clock = TestClock()
        let users: UserService
        let groups: GroupService
        let events: GroupServiceTests.EventRecorder

        /// `liveRoomWindows` ends AVChatRoom rate windows when the test says (real time when nil).
        init(
            attributeWritesPerSecond: Int = 5,
            maximumGroupsPerUser: Int = 10_000,
            messageOptions: MessageOptions = MessageOptions(),
            liveRoomWindows: ManualWindows? = nil
        ) async throws {
            self.temp = try TemporaryStore()
            let clock = self.clock
            self.users = try await makeService(self.temp.store, clock: clock)
            self.groups = GroupService(
                store: self.temp.store,
                now: { clock.now },
                maximumGroupsPerUser: maximumGroupsPerUser,
                attributeWritesPerSecond: attributeWritesPerSecond,
                messageOptions: messageOptions,
                liveRoomWindowEnd: liveRoomWindows.map { $0.end(after:) } ?? LiveRoomGate.realTime
            )
            self.events = GroupServiceTests.EventRecorder(self.temp.store)
        }

        func user(_ name: String) async throws -> Caller {
            let (user, session) = try await self.users.register(identity: .init(username: name), password: "pass", displayName: name, fields: nil)
            return caller(session, user)
        }

        var admin: Caller { Caller(peer: .init(uid: 0, gid: 0, pid: 1), isAdmin: true) }

        /// A group of `type` owned by `owner` with the given admins and members (added by an app admin where
        /// members may not invite).
        func group(_ type: GroupType, _ id: String, owner: Caller, admins: [Caller] = [], members: [Caller] = []) async throws {
            let initial = admins.map { GroupService.InitialMember(userID: $0.id, role: .admin) } + members.map { .init(userID: $0.id) }
            if type == .avChatRoom {
                _ = try await self.groups.create(caller: owner, name: id, groupID: id, type: type, members: [])
                for member in members { _ = try await self.groups.join(caller: member, groupID: id, message: "") }
            } else {
                _ = try await self.groups.create(caller: owner, name: id, groupID: id, type: type, members: initial)
            }
        }

        func kinds(_ groupID: String) -> [GroupEvent.Kind] {
            self.events.all.filter { $0.event.groupID == groupID }.map(\.event.kind)
        }
    }

    // MARK: - owner quits; client-side dismiss of a Work group

    @Test func ownerQuitsOnlyWorkGroupsAndWorkDismissIsServerOnly() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        for type in [GroupType.public, .meeting, .community, .avChatRoom] {
            let id = type == .community ? "@TGS#_q" : "q-\(type.rawValue)"
            try await world.group(type, id, owner: owner, members: [bob])
            await #expect(throws: GuildError(.ownerCannotQuit, ""), "\(type)") {
                try await world.groups.quit(caller: owner, groupID: id)
            }
        }
        try await world.group(.work, "work", owner: owner, members: [bob])
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.delete(caller: owner, groupID: "work")
        }
        // The Work owner may quit; the longest-standing member becomes owner, so the group keeps one.
        try await world.groups.quit(caller: owner, groupID: "work")
        let work = try await world.groups.get(caller: bob, groupID: "work")
        #expect(work.ownerID == bob.id && work.memberCount == 1)
        // Only the server API (an app admin) dismisses a Work group.
        try await world.groups.delete(caller: world.admin, groupID: "work")
        await #expect(throws: GuildError(.groupDismissed, "")) { try await world.groups.get(caller: bob, groupID: "work") }
    }

    // MARK: - join options, applications and who hears of them

    @Test func applicationsGoPendingAndOnlyTheRightPeopleHearOfThem() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let admin = try await world.user("admin")
        let member = try await world.user("member")
        let applicant = try await world.user("applicant")
        try await world.group(.work, "work", owner: owner)
        await #expect(throws: GuildError(.unsupported, "")) { try await world.groups.join(caller: applicant, groupID: "work", message: "") }
        try await world.group(.public, "pub", owner: owner, admins: [admin], members: [member])

        let outcome = try await world.groups.join(caller: applicant, groupID: "pub", message: "let me in")
        guard case .pending(let application) = outcome else {
            Issue.record("a Public join must wait for approval, got \(outcome)")
            return
        }
        // Applying again gives the same pending application.
        #expect(try await world.groups.join(caller: applicant, groupID: "pub", message: "again") == .pending(application))
        let received = try #require(world.events.all.last { $0.event.kind == .receiveJoinApplication }).event
        #expect(Set(received.namedRecipients) == [owner.id, admin.id])
        for (who, sees) in [(owner, true), (admin, true), (member, false), (applicant, false)] {
            #expect(received.isVisible(to: who.id, member: who.id != applicant.id) == sees)
        }
        // A member may not handle it; an admin may; handling twice is 10024.
        await #expect(throws: GuildError(.notAllowed, "")) {
            try await world.groups.handleApplication(caller: member, groupID: "pub", applicationID: application.id, accept: true, message: "")
        }
        try await world.groups.handleApplication(caller: admin, groupID: "pub", applicationID: application.id, accept: true, message: "welcome")
        await #expect(throws: GuildError(.alreadyProcessed, "")) {
            try await world.groups.handleApplication(caller: owner, groupID: "pub", applicationID: application.id, accept: false, message: "")
        }
        let processed = try #require(world.events.all.last { $0.event.kind == .applicationProcessed }).event
        #expect(processed.isVisible(to: applicant.id, member: true))
        #expect(!processed.isVisible(to: owner.id, member: true) && !processed.isVisible(to: admin.id, member: true))
        #expect(processed.changes?["accepted"] == .bool(true))
        #expect(world.kinds("pub").suffix(3) == [.receiveJoinApplication, .memberEnter, .applicationProcessed])
        let page = try await world.groups.applications(caller: owner, groupID: "pub", cursor: 0)
        #expect(page.applications.map(\.status) == [.accepted] && page.pending == 0 && page.next == 0)

        // FORBID refuses; ANY joins at once; a member joining again is 10013.
        _ = try await world.groups.setInfo(caller: owner, groupID: "pub", change: ProfileChange(addOption: .forbid))
        let late = try await world.user("late")
        await #expect(throws: GuildError(.notAllowed, "")) { try await world.groups.join(caller: late, groupID: "pub", message: "") }
        _ = try await world.groups.setInfo(caller: admin, groupID: "pub", change: ProfileChange(addOption: .any))
        #expect(try await world.groups.join(caller: late, groupID: "pub", message: "") == .joined)
        await #expect(throws: GuildError(.alreadyMember, "")) { try await world.groups.join(caller: late, groupID: "pub", message: "") }
    }

    // MARK: - admins act only on ordinary members

    @Test func adminsKickAndMuteOnlyOrdinaryMembersTheOwnerBoth() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let admin1 = try await world.user("admin1")
        let admin2 = try await world.user("admin2")
        let member = try await world.user("member")
        try await world.group(.public, "pub", owner: owner, admins: [admin1, admin2], members: [member])
        for target in [admin2.id, owner.id] {
            await #expect(throws: GuildError(.notAllowed, "")) {
                try await world.groups.removeMembers(caller: admin1, groupID: "pub", userIDs: [target])
            }
            await #expect(throws: GuildError(.notAllowed, "")) {
                try await world.groups.muteMember(caller: admin1, groupID: "pub", userID: target, seconds: 60)
            }
        }
        // A refused kick changes nothing, even for the ordinary member named with it.
        await #expect(throws: GuildError(.notAllowed, "")) {
            try await world.groups.removeMembers(caller: admin1, groupID: "pub", userIDs: [member.id, admin2.id])
        }
        #expect(try await world.groups.get(caller: owner, groupID: "pub").memberCount == 4)
        // The admin may mute and kick an ordinary member; the owner may mute and kick an admin.
        _ = try await world.groups.muteMember(caller: admin1, groupID: "pub", userID: member.id, seconds: 60)
        #expect(try await world.groups.removeMembers(caller: admin1, groupID: "pub", userIDs: [member.id]).map(\.result) == [.succ])
        _ = try await world.groups.muteMember(caller: owner, groupID: "pub", userID: admin2.id, seconds: 60)
        #expect(try await world.groups.removeMembers(caller: owner, groupID: "pub", userIDs: [admin2.id]).map(\.result) == [.succ])
        // Nobody mutes, kicks or demotes the owner, not even an app admin.
        await #expect(throws: GuildError(.notAllowed, "")) {
            try await world.groups.muteMember(caller: world.admin, groupID: "pub", userID: owner.id, seconds: 60)
        }
        await #expect(throws: GuildError(.notAllowed, "")) {
            try await world.groups.removeMembers(caller: world.admin, groupID: "pub", userIDs: [owner.id])
        }
        await #expect(throws: GuildError(.notAllowed, "")) {
            try await world.groups.setMemberRole(caller: world.admin, groupID: "pub", userID: owner.id, role: .member)
        }
        // AVChatRoom cannot kick at all.
        try await world.group(.avChatRoom, "live", owner: owner, members: [member])
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.removeMembers(caller: owner, groupID: "live", userIDs: [member.id])
        }
    }

    // MARK: - invitations

    @Test func invitingAnExistingMemberIsInvalidForThatUserAlone() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        let carol = try await world.user("carol")
        try await world.group(.work, "work", owner: owner, members: [bob])
        // Any Work member invites, without approval.
        let results = try await world.groups.addMembers(caller: bob, groupID: "work", userIDs: [owner.id, carol.id, "nobody"])
        #expect(results.map(\.result) == [.invalid, .succ, .fail])
        #expect(results[2].reason == "USER_NOT_FOUND")
        await #expect(throws: GuildError(.alreadyMember, "")) {
            try await world.groups.addMembers(caller: bob, groupID: "work", userIDs: [owner.id, carol.id])
        }
        let many = (0..<21).map { "u\($0)" }
        await #expect(throws: GuildError(.imInvalidParameters, "")) {
            try await world.groups.addMembers(caller: bob, groupID: "work", userIDs: many)
        }
        // Public members cannot invite (the server API can).
        try await world.group(.public, "pub", owner: owner)
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.addMembers(caller: owner, groupID: "pub", userIDs: [bob.id])
        }
        #expect(try await world.groups.addMembers(caller: world.admin, groupID: "pub", userIDs: [bob.id]).map(\.result) == [.succ])
        #expect(world.kinds("work").last == .memberInvited)
    }

    @Test func aUserInTooManyGroupsIsOverLimit() async throws {
        let world = try await World(maximumGroupsPerUser: 1)
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        try await world.group(.work, "w1", owner: owner, members: [bob])
        try await world.group(.work, "w2", owner: owner)
        #expect(try await world.groups.addMembers(caller: owner, groupID: "w2", userIDs: [bob.id]).map(\.result) == [.overlimit])
    }

    // MARK: - transfers

    @Test func transferNeedsAMemberAndAVChatRoomRefuses() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        let outsider = try await world.user("outsider")
        try await world.group(.public, "pub", owner: owner, members: [bob])
        await #expect(throws: GuildError(.notAMember, "")) {
            try await world.groups.changeOwner(caller: owner, groupID: "pub", userID: outsider.id)
        }
        await #expect(throws: GuildError(.notAllowed, "")) {
            try await world.groups.changeOwner(caller: bob, groupID: "pub", userID: bob.id)
        }
        let moved = try await world.groups.changeOwner(caller: owner, groupID: "pub", userID: bob.id)
        #expect(moved.ownerID == bob.id)
        let members = try await world.groups.membersInfo(caller: bob, groupID: "pub", userIDs: [owner.id, bob.id])
        #expect(Dictionary(uniqueKeysWithValues: members.map { ($0.userID, $0.role) }) == [owner.id: .member, bob.id: .owner])
        let changed = try #require(world.events.all.last { $0.event.kind == .groupInfoChanged }).event
        #expect(changed.changes?["changeTypes"] == .array([.int(5)]) && changed.changes?["owner"] == .string(bob.id))
        try await world.group(.avChatRoom, "live", owner: owner, members: [bob])
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.changeOwner(caller: owner, groupID: "live", userID: bob.id)
        }
    }

    // MARK: - member paging

    @Test func pagingFiltersAndEndsWithZero() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let admin = try await world.user("admin")
        var members: [Caller] = []
        for index in 0..<3 { members.append(try await world.user("member\(index)")) }
        try await world.group(.public, "pub", owner: owner, admins: [admin], members: members)
        var seen: [String] = []
        var nextSeq: Int64 = 0
        var pages = 0
        repeat {
            let page = try await world.groups.memberList(caller: owner, groupID: "pub", filter: .all, nextSeq: nextSeq, limit: 2)
            seen += page.members.map(\.userID)
            nextSeq = page.nextSeq
            pages += 1
            #expect(pages < 3 ? nextSeq != 0 : nextSeq == 0)
        } while nextSeq != 0
        #expect(pages == 3 && seen.count == 5 && Set(seen).count == 5)
        let admins = try await world.groups.memberList(caller: owner, groupID: "pub", filter: .admin, nextSeq: 0)
        #expect(admins.members.map(\.userID) == [admin.id])
        let common = try await world.groups.memberList(caller: owner, groupID: "pub", filter: .common, nextSeq: 0)
        #expect(common.members.map(\.userID) == members.map(\.id))
        let owners = try await world.groups.memberList(caller: owner, groupID: "pub", filter: .owner, nextSeq: 0)
        #expect(owners.members.map(\.userID) == [owner.id])
        // Non-members of an IM group may not list it.
        let outsider = try await world.user("outsider")
        await #expect(throws: GuildError(.notAMember, "")) {
            try await world.groups.memberList(caller: outsider, groupID: "pub", filter: .all, nextSeq: 0)
        }
    }

    @Test func pagesNeitherRepeatNorSkipWhileMembersChange() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        var members: [Caller] = []
        for index in 0..<120 { members.append(try await world.user("member\(index)")) }
        try await world.group(.meeting, "meet", owner: owner)
        for member in members.prefix(100) { _ = try await world.groups.join(caller: member, groupID: "meet", message: "") }
        let first = try await world.groups.memberList(caller: owner, groupID: "meet", filter: .all, nextSeq: 0)
        #expect(first.members.count == 50)
        // Members seen already leave, unseen ones stay, new ones join: the walk sees every member who stayed
        // throughout exactly once.
        for member in members.prefix(10) { try await world.groups.quit(caller: member, groupID: "meet") }
        for member in members[100...] { _ = try await world.groups.join(caller: member, groupID: "meet", message: "") }
        var seen = first.members.map(\.userID)
        var nextSeq = first.nextSeq
        while nextSeq != 0 {
            let page = try await world.groups.memberList(caller: owner, groupID: "meet", filter: .all, nextSeq: nextSeq)
            seen += page.members.map(\.userID)
            nextSeq = page.nextSeq
        }
        #expect(seen.count == Set(seen).count)
        #expect(Set(seen).isSuperset(of: [owner.id] + members[10...].map(\.id)))
    }

    // MARK: - mutes

    @Test func aMutedMemberCannotSendAndTheMuteSurvivesLeavingAndRejoining() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        try await world.group(.meeting, "meet", owner: owner, members: [bob])
        #expect(try await world.groups.sendMessage(caller: bob, groupID: "meet", text: "hi") == 1)
        let until = try await world.groups.muteMember(caller: owner, groupID: "meet", userID: bob.id, seconds: 600)
        #expect(until == world.clock.now + 600_000)
        await #expect(throws: GuildError(.muted, "")) { try await world.groups.sendMessage(caller: bob, groupID: "meet", text: "hi") }
        try await world.groups.quit(caller: bob, groupID: "meet")
        #expect(try await world.groups.join(caller: bob, groupID: "meet", message: "") == .joined)
        await #expect(throws: GuildError(.muted, "")) { try await world.groups.sendMessage(caller: bob, groupID: "meet", text: "hi") }
        #expect(try await world.groups.membersInfo(caller: owner, groupID: "meet", userIDs: [bob.id]).first?.muteUntil == until)
        // The mute ends with its time.
        world.clock.advance(seconds: 601)
        #expect(try await world.groups.sendMessage(caller: bob, groupID: "meet", text: "back") == 2)
        // Muting everyone silences ordinary members, not the owner.
        _ = try await world.groups.setInfo(caller: owner, groupID: "meet", change: ProfileChange(allMuted: true))
        await #expect(throws: GuildError(.muted, "")) { try await world.groups.sendMessage(caller: bob, groupID: "meet", text: "hi") }
        #expect(try await world.groups.sendMessage(caller: owner, groupID: "meet", text: "quiet") == 3)
        #expect(world.kinds("meet").contains(.allMembersMuted))
        // Work groups cannot mute.
        try await world.group(.work, "work", owner: owner, members: [bob])
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.muteMember(caller: owner, groupID: "work", userID: bob.id, seconds: 60)
        }
    }

    // MARK: - attributes

    @Test func attributesFollowTencentsLimitsAndConflicts() async throws {
        let world = try await World(attributeWritesPerSecond: 100)
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        try await world.group(.avChatRoom, "live", owner: owner, members: [bob])
        let first = try await world.groups.writeAttributes(caller: bob, groupID: "live", write: .set(["a": "1", "b": "2"]), version: nil)
        // init wipes the keys there were.
        let wiped = try await world.groups.writeAttributes(caller: owner, groupID: "live", write: .initialize(["c": "3"]), version: first.version)
        #expect(wiped.values == ["c": "3"] && wiped.version == first.version + 1)
        let full = Dictionary(uniqueKeysWithValues: (0..<16).map { ("k\($0)", "v") })
        _ = try await world.groups.writeAttributes(caller: owner, groupID: "live", write: .initialize(full), version: nil)
        for bad in [["k16": "v"], [String(repeating: "k", count: 33): "v"], ["k0": String(repeating: "v", count: 4097)]] {
            await #expect(throws: GuildError(.imInvalidParameters, "")) {
                try await world.groups.writeAttributes(caller: owner, groupID: "live", write: .set(bad), version: nil)
            }
        }
        // Two writers read the same version: the first wins, the stale one gets 10056.
        let read = try await world.groups.attributes(caller: bob, groupID: "live", keys: nil)
        _ = try await world.groups.writeAttributes(caller: owner, groupID: "live", write: .set(["k0": "owner"]), version: read.version)
        await #expect(throws: GuildError(.attributeConflict, "")) {
            try await world.groups.writeAttributes(caller: bob, groupID: "live", write: .set(["k0": "bob"]), version: read.version)
        }
        let cleared = try await world.groups.writeAttributes(caller: bob, groupID: "live", write: .delete(nil), version: nil)
        #expect(cleared.values.isEmpty)
        let changed = try #require(world.events.all.last { $0.event.kind == .groupAttributeChanged }).event
        #expect(changed.changes?["attributes"] == .object([:]))
        // Non-members may not touch them; only AVChatRoom groups have them (Tencent IM).
        let outsider = try await world.user("outsider")
        await #expect(throws: GuildError(.notAMember, "")) { try await world.groups.attributes(caller: outsider, groupID: "live", keys: nil) }
        _ = try await world.groups.create(caller: owner, name: "B", groupID: "basic", type: .basic, members: [])
        await #expect(throws: GuildError(.unsupported, "")) { try await world.groups.attributes(caller: owner, groupID: "basic", keys: nil) }
        try await world.group(.public, "pub", owner: owner)
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.writeAttributes(caller: owner, groupID: "pub", write: .set(["k": "v"]), version: nil)
        }
    }

    @Test func attributeWritesAreRateLimitedPerGroup() async throws {
        let world = try await World(attributeWritesPerSecond: 5)
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        try await world.group(.avChatRoom, "pub", owner: owner)
        try await world.group(.avChatRoom, "other", owner: owner)
        for index in 0..<5 {
            _ = try await world.groups.writeAttributes(caller: owner, groupID: "pub", write: .set(["k": "\(index)"]), version: nil)
        }
        await #expect(throws: GuildError(.attributeRateLimited, "")) {
            try await world.groups.writeAttributes(caller: owner, groupID: "pub", write: .set(["k": "x"]), version: nil)
        }
        _ = try await world.groups.writeAttributes(caller: owner, groupID: "other", write: .set(["k": "x"]), version: nil)
        world.clock.advance(seconds: 1)
        _ = try await world.groups.writeAttributes(caller: owner, groupID: "pub", write: .set(["k": "x"]), version: nil)
    }

    // MARK: - dismissed groups

    @Test func everyCallOnADismissedGroupGivesGroupDismissed() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        try await world.group(.public, "pub", owner: owner, members: [bob])
        try await world.groups.delete(caller: owner, groupID: "pub")
        #expect(world.kinds("pub").last == .groupDismissed)
        let groups = world.groups
        let calls: [(String, @Sendable () async throws -> Void)] = [
            ("get", { _ = try await groups.get(caller: bob, groupID: "pub") }),
            ("join", { _ = try await groups.join(caller: bob, groupID: "pub", message: "") }),
            ("quit", { try await groups.quit(caller: bob, groupID: "pub") }),
            ("dismiss", { try await groups.delete(caller: owner, groupID: "pub") }),
            ("setInfo", { _ = try await groups.setInfo(caller: owner, groupID: "pub", change: ProfileChange(name: "x")) }),
            ("addMembers", { _ = try await groups.addMembers(caller: world.admin, groupID: "pub", userIDs: [bob.id]) }),
            ("removeMembers", { _ = try await groups.removeMembers(caller: owner, groupID: "pub", userIDs: [bob.id]) }),
            ("members", { _ = try await groups.members(caller: owner, groupID: "pub", cursor: 0, limit: 10) }),
            ("memberList", { _ = try await groups.memberList(caller: owner, groupID: "pub", filter: .all, nextSeq: 0) }),
            ("mute", { _ = try await groups.muteMember(caller: owner, groupID: "pub", userID: bob.id, seconds: 1) }),
            ("setRole", { try await groups.setMemberRole(caller: owner, groupID: "pub", userID: bob.id, role: .admin) }),
            ("transfer", { _ = try await groups.changeOwner(caller: owner, groupID: "pub", userID: bob.id) }),
            ("attributes", { _ = try await groups.attributes(caller: owner, groupID: "pub", keys: nil) }),
            ("membersInfo", { _ = try await groups.membersInfo(caller: owner, groupID: "pub", userIDs: [bob.id]) }),
            ("setMemberInfo", { try await groups.setMemberInfo(caller: owner, groupID: "pub", userID: bob.id, change: .init(nameCard: "x")) }),
            ("accept", { try await groups.handleApplication(caller: owner, groupID: "pub", applicationID: 1, accept: true, message: "") }),
            ("send", { _ = try await groups.sendMessage(caller: owner, groupID: "pub", text: "x") }),
            ("applications", { _ = try await groups.applications(caller: owner, groupID: "pub", cursor: 0) }),
            ("receiveOption", { try await groups.setReceiveOption(caller: bob, groupID: "pub", option: .notReceive) }),
        ]
        for (name, call) in calls {
            await #expect(throws: GuildError(.groupDismissed, ""), "\(name)") { try await call() }
        }
        let lookup = try await groups.getInfo(caller: bob, groupIDs: ["pub", "never"])
        #expect(lookup.dismissed == ["pub"] && lookup.notFound == ["never"] && lookup.groups.isEmpty)
        // The id is never reused.
        await #expect(throws: GuildError(.groupIDInUse, "")) {
            try await groups.create(caller: owner, name: "again", groupID: "pub", type: .public, members: [])
        }
    }

    // MARK: - The rest of the surface

    @Test func profilesAreLimitedInBytesAndChangesCarryTencentsTypes() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let member = try await world.user("member")
        try await world.group(.public, "pub", owner: owner, members: [member])
        for change in [
            ProfileChange(name: String(repeating: "名", count: 11)),  // 33 bytes: Tencent allows 30
            ProfileChange(introduction: String(repeating: "i", count: 401)),
            ProfileChange(notification: String(repeating: "n", count: 401)),
            ProfileChange(faceURL: String(repeating: "f", count: 501)),
            ProfileChange(custom: [String(repeating: "k", count: 17): "v"]),
        ] {
            await #expect(throws: GuildError(.imInvalidParameters, "")) {
                try await world.groups.setInfo(caller: owner, groupID: "pub", change: change)
            }
        }
        await #expect(throws: GuildError(.notAllowed, "")) {
            try await world.groups.setInfo(caller: member, groupID: "pub", change: ProfileChange(name: "mine"))
        }
        let changed = try await world.groups.setInfo(
            caller: owner,
            groupID: "pub",
            change: ProfileChange(name: "Books", introduction: "We read", faceURL: "https://example.com/f.png")
        )
        #expect(changed.name == "Books" && changed.introduction == "We read")
        let event = try #require(world.events.all.last { $0.event.kind == .groupInfoChanged }).event
        #expect(event.changes?["changeTypes"] == .array([.int(1), .int(2), .int(4)]))
        // Any Work member edits the profile; AVChatRoom only the owner.
        try await world.group(.work, "work", owner: owner, members: [member])
        _ = try await world.groups.setInfo(caller: member, groupID: "work", change: ProfileChange(notification: "hello"))
        try await world.group(.avChatRoom, "live", owner: owner, members: [member])
        await #expect(throws: GuildError(.notAllowed, "")) {
            try await world.groups.setInfo(caller: member, groupID: "live", change: ProfileChange(notification: "hello"))
        }
        // Work groups stay invitation-only.
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.setInfo(caller: owner, groupID: "work", change: ProfileChange(addOption: .any))
        }
    }

    @Test func idsFollowTencentsRules() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        for bad in ["", "has space", String(repeating: "x", count: 49), "@TGS#mine", "tab\tid"] {
            await #expect(throws: GuildError(.invalidGroupID, ""), "\(bad)") {
                try await world.groups.create(caller: owner, name: "x", groupID: bad, type: .work, members: [])
            }
        }
        await #expect(throws: GuildError(.invalidGroupID, "")) {
            try await world.groups.create(caller: owner, name: "x", groupID: "plain", type: .community, members: [])
        }
        _ = try await world.groups.create(caller: owner, name: "x", groupID: "@TGS#_club", type: .community, members: [])
        _ = try await world.groups.create(caller: owner, name: "x", groupID: "Mixed.Case-ID_1", type: .work, members: [])
        await #expect(throws: GuildError(.groupIDInUse, "")) {
            try await world.groups.create(caller: owner, name: "x", groupID: "Mixed.Case-ID_1", type: .public, members: [])
        }
        let generated = try await world.groups.create(caller: owner, name: "x", groupID: nil, type: .community, members: [])
        #expect(generated.group.id.hasPrefix("@TGS#_"))
        // Initial members with roles; no admins where the type has none; AVChatRoom takes no initial members.
        let bob = try await world.user("bob")
        await #expect(throws: GuildError(.imInvalidParameters, "")) {
            try await world.groups.create(caller: owner, name: "x", groupID: "w", type: .work, members: [.init(userID: bob.id, role: .admin)])
        }
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.create(caller: owner, name: "x", groupID: "live", type: .avChatRoom, members: [.init(userID: bob.id)])
        }
    }

    @Test func rolesChangeOnlyInTypesWithAdminsAndMeetingKeepsThemQuiet() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        try await world.group(.work, "work", owner: owner, members: [bob])
        await #expect(throws: GuildError(.unsupported, "")) {
            try await world.groups.setMemberRole(caller: owner, groupID: "work", userID: bob.id, role: .admin)
        }
        for type in [GroupType.public, .meeting] {
            let id = "r-\(type.rawValue)"
            try await world.group(type, id, owner: owner, members: [bob])
            try await world.groups.setMemberRole(caller: owner, groupID: id, userID: bob.id, role: .admin)
            await #expect(throws: GuildError(.notAllowed, "")) {
                try await world.groups.setMemberRole(caller: bob, groupID: id, userID: owner.id, role: .member)
            }
            try await world.groups.setMemberRole(caller: owner, groupID: id, userID: bob.id, role: .member)
            let grant = try #require(world.events.all.last { $0.event.groupID == id && $0.event.kind == .grantAdministrator }).event
            let revoke = try #require(world.events.all.last { $0.event.groupID == id && $0.event.kind == .revokeAdministrator }).event
            // Meeting role changes reach app admins only; Public ones reach the members.
            let audience: GroupEvent.Audience = type == .meeting ? .admins : .members
            #expect(grant.audience == audience && revoke.audience == audience)
            #expect(grant.isVisible(to: owner.id, member: true) == (type == .public))
        }
        await #expect(throws: GuildError(.imInvalidParameters, "")) {
            try await world.groups.setMemberRole(caller: owner, groupID: "r-Public", userID: bob.id, role: .owner)
        }
    }

    @Test func meetingMemberChangesReachOnlyAppAdmins() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        try await world.group(.meeting, "meet", owner: owner)
        _ = try await world.groups.join(caller: bob, groupID: "meet", message: "")
        try await world.groups.quit(caller: bob, groupID: "meet")
        let changes = world.events.all.filter { $0.event.groupID == "meet" && [.memberEnter, .memberLeave].contains($0.event.kind) }
        #expect(changes.count == 2 && changes.allSatisfy { $0.event.audience == .admins })
        #expect(changes.allSatisfy { !$0.event.isVisible(to: owner.id, member: true) && !$0.event.isVisible(to: bob.id, member: true) })
        // A Public join is heard by every member, the joiner included.
        try await world.group(.public, "pub", owner: owner)
        _ = try await world.groups.setInfo(caller: owner, groupID: "pub", change: ProfileChange(addOption: .any))
        _ = try await world.groups.join(caller: bob, groupID: "pub", message: "")
        let enter = try #require(world.events.all.last { $0.event.kind == .memberEnter }).event
        #expect(enter.isVisible(to: owner.id, member: true) && enter.isVisible(to: bob.id, member: true))
    }

    @Test func joinedListLeavesOutAVChatRoomsAndReceiveOptionsAreKept() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("owner")
        try await world.group(.work, "work", owner: owner)
        try await world.group(.avChatRoom, "live", owner: owner)
        _ = try await world.groups.create(caller: owner, name: "B", groupID: "basic", type: .basic, members: [])
        #expect(Set(try await world.groups.joinedList(caller: owner, userID: nil).map(\.id)) == ["work", "basic"])
        try await world.groups.setReceiveOption(caller: owner, groupID: "work", option: .receiveNotNotify)
        let info = try await world.groups.membersInfo(caller: owner, groupID: "work", userIDs: [owner.id])
        #expect(info.first?.receiveOption == .receiveNotNotify && info.first?.nickName == "owner")
        try await world.groups.setMemberInfo(
            caller: owner,
            groupID: "work",
            userID: owner.id,
            change: .init(nameCard: "Boss", custom: ["desk": "3F"])
        )
        let after = try await world.groups.membersInfo(caller: owner, groupID: "work", userIDs: [owner.id])
        #expect(after.first?.nameCard == "Boss" && after.first?.custom == ["desk": "3F"])
        let types = GroupType.allCases.map { GroupPolicy.of($0).type }
        #expect(types == GroupType.allCases)
    }
}

extension Caller {
    /// The session user's id (tests only bind sessions).
    fileprivate var id: String { self.session!.user.id }
}
