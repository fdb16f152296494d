import Foundation
import GuildCore
import GuildPostgres
import GuildProtocol
import GuildStore
import GuildTestSupport
import PostgresNIO
import Testing

/// What a group conformance test sees inside one transaction: the records of the users, groups, IM groups and
/// messages areas, and the event log to append group events to.
struct GroupTestTransaction {
    let records: any Transaction
    let appendEvent: (GroupEvent) throws -> Int64
}

/// A store seen through its groups areas' records: each `write` one write transaction, each `read` a read.
protocol GroupRecordsStore: Sendable {
    func write<T: Sendable>(_ body: @escaping @Sendable (GroupTestTransaction) throws -> T) async throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (GroupTestTransaction) throws -> T) async throws -> T
    /// The sequence numbers of the committed group events that `userID` may replay, in order.
    func replayable(by userID: String) async throws -> [Int64]
    /// The last committed event's number.
    func head() async throws -> Int64
}

extension GroupRecordsStore {
    /// Runs `body`, which appends one event, in a write transaction; returns that event's number once committed
    /// (the log's head: a conformance test writes alone). What `append` returns names the event inside the
    /// transaction only (``GuildCore/EventRecords``).
    func writeEvent(_ body: @escaping @Sendable (GroupTestTransaction) throws -> Int64) async throws -> Int64 {
        _ = try await self.write(body)
        return try await self.head()
    }
}

struct SQLiteGroupRecordsStore: GroupRecordsStore {
    let store: SQLiteStore

    func write<T: Sendable>(_ body: @escaping @Sendable (GroupTestTransaction) throws -> T) async throws -> T {
        try await self.store.write { tx in try body(GroupTestTransaction(records: tx) { try tx.append($0) }) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (GroupTestTransaction) throws -> T) async throws -> T {
        try await self.store.read { tx in try body(GroupTestTransaction(records: tx) { try tx.append($0) }) }
    }

    func replayable(by userID: String) async throws -> [Int64] {
        try await self.store.replay(userID: userID, installationID: nil, after: 0, through: .max, limit: 1000)
            .filter { $0.topic.area == GroupEventAudience.groupArea }.map(\.seq)
    }

    func head() async throws -> Int64 { try await self.store.eventSnapshot(userID: nil).head }
}

struct PostgresGroupRecordsStore: GroupRecordsStore {
    let writer: PostgresWriter
    let reader: BlockingConnection

    func write<T: Sendable>(_ body: @escaping @Sendable (GroupTestTransaction) throws -> T) async throws -> T {
        try await self.writer.write { context in
            let tx = PostgresTransaction(context)
            return try body(GroupTestTransaction(records: tx) { try tx.append($0) })
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (GroupTestTransaction) throws -> T) async throws -> T {
        let reader = self.reader
        return try await TestPostgres.blocking {
            let tx = PostgresTransaction(reading: reader)
            return try body(GroupTestTransaction(records: tx) { try tx.append($0) })
        }
    }

    func replayable(by userID: String) async throws -> [Int64] {
        let reader = self.reader
        return try await TestPostgres.blocking { try GroupPostgresEventArea.replayable(by: userID, on: reader) }
    }

    func head() async throws -> Int64 {
        let reader = self.reader
        return try await TestPostgres.blocking { try PostgresEventLog.head(on: reader) }
    }
}

extension Engine {
    /// Runs `body` with a fresh, empty store of this engine, schema migrated; removes the store afterwards.
    func withGroupStore<T: Sendable>(_ body: (any GroupRecordsStore) async throws -> T) async throws -> T {
        try await self.withFreshStore(
            sqlite: { SQLiteGroupRecordsStore(store: $0) as any GroupRecordsStore },
            postgres: { PostgresGroupRecordsStore(writer: $0, reader: $1) },
            body
        )
    }
}

/// The groups area's records behave the same on every engine: the same answers, the same errors, and the same
/// audience for replay.
@Suite(.timeLimit(.minutes(10)))
struct GroupRecordsConformanceTests {
    // MARK: - Fixtures

    /// Inserts pseudo users with these ids (display name `Name <id>`).
    static func users(_ ids: [String], into store: any GroupRecordsStore) async throws {
        try await store.write { tx throws in
            for id in ids {
                let user = User(id: id, displayName: "Name \(id)", isPseudo: true, createdAt: 1, modifiedAt: 1)
                let session = IssuedSession(
                    accessToken: .generate(),
                    refreshToken: nil,
                    expiresAt: nil,
                    family: UUID().uuidString
                )
                try tx.records.users.insertUser(user, passwordHash: nil, session: session)
            }
        }
    }

    /// Creates group `id` with `owner` and `members` (in that join order), and the `groupCreated` event that opens
    /// their membership history; returns the event's seq.
    @discardableResult
    static func group(
        _ id: String,
        type: GroupType = .work,
        owner: String,
        members: [String] = [],
        into store: any GroupRecordsStore
    ) async throws -> Int64 {
        try await store.writeEvent { tx throws in
            try tx.records.groups.insertGroup(id: id, name: "Group \(id)", type: type, now: 100)
            try tx.records.groups.insertMember(groupID: id, userID: owner, role: .owner, now: 100)
            for member in members {
                try tx.records.groups.insertMember(groupID: id, userID: member, role: .member, now: 101)
            }
            return try tx.appendEvent(
                GroupEvent(
                    kind: .groupCreated,
                    groupID: id,
                    actor: owner,
                    users: [owner] + members,
                    time: 100,
                    joined: [owner] + members
                )
            )
        }
    }

    /// Expects `body` to throw the `GuildError` with this code, message and field.
    static func expectError(
        _ code: GuildError.Code,
        _ message: String,
        field: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as GuildError {
            #expect(error.code == code, sourceLocation: sourceLocation)
            #expect(error.message == message, sourceLocation: sourceLocation)
            #expect(error.field == field, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Groups and memberships

    @Test(arguments: Engine.available)
    func groupsAndMembershipsAreReadAsWritten(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1", "u2", "u3"], into: store)
            try await Self.group("g1", type: .public, owner: "u1", members: ["u2", "u3"], into: store)
            try await Self.group("g2", owner: "u2", members: ["u1"], into: store)
            try await store.read { tx throws in
                let group = try #require(try tx.records.groups.group("g1"))
                #expect(group.name == "Group g1")
                #expect(group.type == .public)
                #expect(group.ownerID == "u1")
                #expect(group.memberCount == 3)
                #expect(group.createdAt == 100 && group.modifiedAt == 100)
                #expect(group.addOption == .forbid && !group.allMuted && group.custom.isEmpty)
                #expect(try tx.records.groups.group("nope") == nil)
                #expect(try tx.records.groups.group("g1\u{0}x") == nil)
                #expect(try tx.records.groups.groupOwnership("g2") == GroupOwnership(ownerID: "u2"))
                #expect(try tx.records.groups.groupOwnership("nope") == nil)
                let member = try #require(try tx.records.groups.membership(groupID: "g1", userID: "u2"))
                #expect(member.role == .member && member.joinedAt == 101 && member.groupID == "g1")
                #expect(try tx.records.groups.membership(groupID: "g2", userID: "u3") == nil)
                let both = try #require(try tx.records.groups.groupAndMembership("g1", userID: "u2"))
                #expect(both.group.id == "g1" && both.group.memberCount == 3 && both.group.ownerID == "u1")
                #expect(both.membership == member)
                #expect(try tx.records.groups.groupAndMembership("g2", userID: "u3").map { $0.group.id == "g2" && $0.membership == nil } == true)
                #expect(try tx.records.groups.groupAndMembership("g1", userID: nil).map { $0.membership == nil } == true)
                #expect(try tx.records.groups.groupAndMembership("g1", userID: "u2\u{0}").map { $0.membership == nil } == true)
                #expect(try tx.records.groups.groupAndMembership("nope", userID: "u1") == nil)
                #expect(try tx.records.groups.userExists("u3"))
                #expect(try !tx.records.groups.userExists("u9"))
                // What adding a member reads first: the membership, and whether the user exists.
                let invitee = try tx.records.groups.invitee(groupID: "g1", userID: "u2")
                #expect(invitee.membership == member && invitee.exists)
                let nonMember = try tx.records.groups.invitee(groupID: "g2", userID: "u3")
                #expect(nonMember.membership == nil && nonMember.exists)
                let nobody = try tx.records.groups.invitee(groupID: "g1", userID: "u9")
                #expect(nobody.membership == nil && !nobody.exists)
                let noGroup = try tx.records.groups.invitee(groupID: "nope", userID: "u3")
                #expect(noGroup.membership == nil && noGroup.exists)
                let unstorable = try tx.records.groups.invitee(groupID: "g1", userID: "u2\u{0}")
                #expect(unstorable.membership == nil && !unstorable.exists)
                #expect(try tx.records.groups.memberIDs(groupID: "g1") == ["u1", "u2", "u3"])
                let first = try tx.records.groups.memberPage(groupID: "g1", after: 0, limit: 2)
                #expect(first.map(\.userID) == ["u1", "u2"])
                #expect(first.map(\.role) == [.owner, .member])
                let rest = try tx.records.groups.memberPage(groupID: "g1", after: try #require(first.last).joinSeq, limit: 2)
                #expect(rest.map(\.userID) == ["u3"])
                #expect(try tx.records.groups.memberships(userID: "u1").map(\.groupID) == ["g1", "g2"])
                #expect(try tx.records.groups.groups(memberOf: "u1").map(\.id) == ["g1", "g2"])
                #expect(try tx.records.groups.groups(memberOf: "u1").map(\.ownerID) == ["u1", "u2"])
                #expect(try tx.records.groups.groups(ownedBy: "u1").map(\.id) == ["g1"])
                #expect(try tx.records.groups.groupIDs(of: "u2", ownedOnly: false) == ["g1", "g2"])
                #expect(try tx.records.groups.groupIDs(of: "u2", ownedOnly: true) == ["g2"])
                #expect(try tx.records.groups.groupInvariantViolations() == [])
            }
        }
    }

    @Test(arguments: Engine.available)
    func aTakenGroupIDIsGroupAlreadyExists(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1"], into: store)
            try await Self.group("g1", owner: "u1", into: store)
            await Self.expectError(.groupAlreadyExists, "a group with id g1 already exists", field: "groupID") {
                try await store.write { try $0.records.groups.insertGroup(id: "g1", name: "Again", type: .basic, now: 5) }
            }
            #expect(try await store.read { try $0.records.groups.group("g1")?.name } == "Group g1")
        }
    }

    @Test(arguments: Engine.available)
    func rolesOwnersAndRemovalsKeepTheGroupRowInStep(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1", "u2", "u3"], into: store)
            try await Self.group("g1", owner: "u1", members: ["u2", "u3"], into: store)
            // An owner transfer: the old owner steps down first (one owner at a time), then the new one steps up.
            try await store.write { tx throws in
                try tx.records.groups.setRole(groupID: "g1", userID: "u1", role: .member)
                try tx.records.groups.setRole(groupID: "g1", userID: "u2", role: .owner)
                try tx.records.groups.setRole(groupID: "g1", userID: "u3", role: .admin)
                try tx.records.groups.touchGroup(id: "g1", now: 200)
            }
            try await store.read { tx throws in
                let group = try #require(try tx.records.groups.group("g1"))
                #expect(group.ownerID == "u2" && group.modifiedAt == 200)
                #expect(try tx.records.groups.membership(groupID: "g1", userID: "u3")?.role == .admin)
                #expect(try tx.records.groups.groupInvariantViolations() == [])
            }
            // A second owner breaks the one-owner index.
            await #expect(throws: (any Error).self) {
                try await store.write { try $0.records.groups.setRole(groupID: "g1", userID: "u1", role: .owner) }
            }
            // Removing the owner leaves the group ownerless; removing a non-member changes nothing.
            try await store.write { tx throws in
                try tx.records.groups.deleteMember(groupID: "g1", userID: "u2")
                try tx.records.groups.deleteMember(groupID: "g1", userID: "u2")
                let event = GroupEvent(kind: .memberLeave, groupID: "g1", actor: "u2", time: 201, left: ["u2"])
                _ = try tx.appendEvent(event)
            }
            try await store.read { tx throws in
                let group = try #require(try tx.records.groups.group("g1"))
                #expect(group.ownerID == nil)
                #expect(group.memberCount == 2)
                #expect(try tx.records.groups.memberIDs(groupID: "g1") == ["u1", "u3"])
                #expect(try tx.records.groups.groupInvariantViolations() == [])
            }
            // A new owner joins as owner; the group row names them.
            try await store.write { tx throws in
                try tx.records.groups.insertMember(groupID: "g1", userID: "u2", role: .owner, now: 300)
                let event = GroupEvent(kind: .memberEnter, groupID: "g1", actor: "u2", time: 300, joined: ["u2"])
                _ = try tx.appendEvent(event)
            }
            #expect(try await store.read { try $0.records.groups.group("g1")?.ownerID } == "u2")
            #expect(try await store.read { try $0.records.groups.groupInvariantViolations() } == [])
            // Deleting the group deletes its memberships.
            try await store.write { try $0.records.groups.deleteGroup(id: "g1") }
            try await store.read { tx throws in
                #expect(try tx.records.groups.group("g1") == nil)
                #expect(try tx.records.groups.memberships(userID: "u1") == [])
                #expect(try tx.records.groups.groups(memberOf: "u2") == [])
            }
        }
    }

    @Test(arguments: Engine.available)
    func aProfileIsSavedWholeWithFreeTextKeptByteForByte(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1"], into: store)
            try await Self.group("g1", owner: "u1", into: store)
            var group = try #require(try await store.read { try $0.records.groups.group("g1") })
            group.name = "New\u{0}name"
            group.introduction = "Intro ✓"
            group.notification = "Note"
            group.faceURL = "https://example.com/a/b.png"
            group.addOption = .any
            group.allMuted = true
            group.custom = ["b": "2", "a": "1/x"]
            group.modifiedAt = 500
            try await store.write { [group] in try $0.records.groups.saveProfile(group) }
            #expect(try await store.read { try $0.records.groups.group("g1") } == group)
        }
    }

    // MARK: - Replay audience

    /// Members see a group's events while members (the events that add and remove them included), named users see
    /// the events naming them, and excluded members never see theirs.
    @Test(arguments: Engine.available)
    func replayFollowsMembershipHistoryNamedUsersAndExclusions(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1", "u2", "u3", "u4"], into: store)
            let created = try await Self.group("g1", owner: "u1", members: ["u2"], into: store)
            let left = try await store.writeEvent { tx throws in
                try tx.records.groups.deleteMember(groupID: "g1", userID: "u2")
                return try tx.appendEvent(
                    GroupEvent(kind: .quitFromGroup, groupID: "g1", actor: "u2", users: ["u2"], time: 101, left: ["u2"])
                )
            }
            let named = try await store.writeEvent { tx throws in
                try tx.appendEvent(
                    GroupEvent(
                        kind: .receiveJoinApplication,
                        groupID: "g1",
                        actor: "u4",
                        users: ["u4"],
                        audience: .named,
                        recipients: ["u3", "u3"],
                        time: 102
                    )
                )
            }
            let message = try await store.writeEvent { tx throws in
                try tx.appendEvent(
                    GroupEvent(kind: .newMessage, groupID: "g1", actor: "u1", time: 103, excluded: ["u1"])
                )
            }
            let admins = try await store.writeEvent { tx throws in
                try tx.appendEvent(
                    GroupEvent(
                        kind: .memberInfoChanged,
                        groupID: "g1",
                        actor: nil,
                        users: ["u1"],
                        audience: .admins,
                        time: 104
                    )
                )
            }
            let joined = try await store.writeEvent { tx throws in
                try tx.records.groups.insertMember(groupID: "g1", userID: "u4", role: .member, now: 105)
                return try tx.appendEvent(
                    GroupEvent(kind: .memberEnter, groupID: "g1", actor: "u4", users: ["u4"], time: 105, joined: ["u4"])
                )
            }
            #expect(try await store.replayable(by: "u1") == [created, left, joined])
            #expect(try await store.replayable(by: "u2") == [created, left])
            #expect(try await store.replayable(by: "u3") == [named])
            #expect(try await store.replayable(by: "u4") == [joined])
            #expect(message > named && admins > message)
            #expect(try await store.read { try $0.records.groups.groupInvariantViolations() } == [])
        }
    }

    // MARK: - IM groups

    @Test(arguments: Engine.available)
    func imMembersMutesAndTombstones(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1", "u2", "u3", "u4"], into: store)
            try await Self.group("g1", owner: "u1", members: ["u2", "u3"], into: store)
            try await Self.group("g2", owner: "u2", into: store)
            try await store.write { tx throws in
                try tx.records.groups.setRole(groupID: "g1", userID: "u3", role: .admin)
                try tx.records.imGroups.updateMember(
                    groupID: "g1",
                    userID: "u2",
                    nameCard: "Card\u{0}2",
                    custom: ["k": "v"],
                    receiveOption: .notReceive
                )
                try tx.records.imGroups.updateMember(groupID: "g1", userID: "u3", nameCard: nil, custom: nil, receiveOption: nil)
                try tx.records.imGroups.setMute(groupID: "g1", userID: "u2", until: 900)
                try tx.records.imGroups.setMute(groupID: "g1", userID: "u2", until: 950)
                try tx.records.imGroups.setMute(groupID: "g1", userID: "u3", until: 900)
                try tx.records.imGroups.setMute(groupID: "g1", userID: "u3", until: 0)
                try tx.records.imGroups.insertTombstone(id: "old", type: .public, now: 10)
                try tx.records.imGroups.insertTombstone(id: "old", type: .meeting, now: 11)
            }
            try await store.read { tx throws in
                #expect(try tx.records.imGroups.dismissedType("old") == .meeting)
                #expect(try tx.records.imGroups.dismissedType("g1") == nil)
                #expect(try tx.records.imGroups.membershipCount(userID: "u2") == 2)
                #expect(try tx.records.imGroups.membershipCount(userID: "u4") == 0)
                #expect(try tx.records.imGroups.managerIDs(groupID: "g1") == ["u1", "u3"])
                #expect(try tx.records.imGroups.longestStandingMember(groupID: "g1", excluding: "u1") == "u2")
                #expect(try tx.records.imGroups.longestStandingMember(groupID: "g2", excluding: "u2") == nil)
                #expect(try tx.records.imGroups.membersNotReceiving(groupID: "g1") == ["u2"])
                #expect(try tx.records.imGroups.muteUntil(groupID: "g1", userID: "u2") == 950)
                #expect(try tx.records.imGroups.muteUntil(groupID: "g1", userID: "u3") == 0)
                let page = try tx.records.imGroups.memberInfos(groupID: "g1", roles: [.member, .admin], after: 0, limit: 1)
                #expect(page.map(\.info.userID) == ["u2"])
                let second = try tx.records.imGroups.memberInfos(
                    groupID: "g1",
                    roles: [.member, .admin],
                    after: try #require(page.first).cursor,
                    limit: 5
                )
                #expect(second.map(\.info.userID) == ["u3"])
                let infos = try tx.records.imGroups.memberInfos(groupID: "g1", userIDs: ["u3", "u2", "u4"])
                #expect(
                    infos == [
                        MemberInfo(
                            userID: "u2",
                            role: .member,
                            joinedAt: 101,
                            nameCard: "Card\u{0}2",
                            nickName: "Name u2",
                            muteUntil: 950,
                            receiveOption: .notReceive,
                            custom: ["k": "v"]
                        ),
                        MemberInfo(
                            userID: "u3",
                            role: .admin,
                            joinedAt: 101,
                            nameCard: "",
                            nickName: "Name u3",
                            muteUntil: 0,
                            receiveOption: .receive,
                            custom: [:]
                        ),
                    ]
                )
                #expect(try tx.records.imGroups.memberInfos(groupID: "g1", userIDs: []) == [])
            }
        }
    }

    @Test(arguments: Engine.available)
    func joinApplicationsAttributesAndMessageNumbers(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1", "u2", "u3"], into: store)
            try await Self.group("g1", owner: "u1", into: store)
            let (first, second) = try await store.write { tx throws in
                (
                    try tx.records.imGroups.insertApplication(groupID: "g1", fromUser: "u2", message: "let me in", now: 10),
                    try tx.records.imGroups.insertApplication(groupID: "g1", fromUser: "u3", message: "me too", now: 11)
                )
            }
            #expect(first.status == .pending && first.message == "let me in" && second.id > first.id)
            // One pending application per user and group.
            await #expect(throws: (any Error).self) {
                _ = try await store.write {
                    try $0.records.imGroups.insertApplication(groupID: "g1", fromUser: "u2", message: "", now: 12)
                }
            }
            try await store.write { tx throws in
                try tx.records.imGroups.handleApplication(id: first.id, status: .refused, by: "u1", message: "no", now: 20)
            }
            try await store.read { tx throws in
                let handled = try #require(try tx.records.imGroups.application(id: first.id))
                #expect(handled.status == .refused && handled.handledBy == "u1" && handled.handledMessage == "no")
                #expect(handled.handledAt == 20 && handled.createdAt == 10 && handled.fromUser == "u2")
                #expect(try tx.records.imGroups.application(id: 9999) == nil)
                #expect(try tx.records.imGroups.pendingApplication(groupID: "g1", fromUser: "u2") == nil)
                #expect(try tx.records.imGroups.pendingApplication(groupID: "g1", fromUser: "u3") == second)
                let page = try tx.records.imGroups.applications(groupID: "g1", before: 0, limit: 1)
                #expect(page.applications.map(\.id) == [second.id] && page.pending == 1)
                let next = try tx.records.imGroups.applications(groupID: "g1", before: second.id, limit: 5)
                #expect(next.applications.map(\.id) == [first.id])
                #expect(try tx.records.imGroups.attributes(groupID: "g1") == GroupAttributes(values: [:], version: 0))
                #expect(try tx.records.imGroups.attributes(groupID: "nope") == GroupAttributes(values: [:], version: 0))
            }
            let versions = try await store.write { tx throws in
                [
                    try tx.records.imGroups.saveAttributes(groupID: "g1", values: ["a": "1"]),
                    try tx.records.imGroups.saveAttributes(groupID: "g1", values: ["b": "2", "a": "3"]),
                    try tx.records.imGroups.saveAttributes(groupID: "nope", values: ["a": "1"]),
                    try tx.records.imGroups.nextMessageSeq(groupID: "g1"),
                    try tx.records.imGroups.nextMessageSeq(groupID: "g1"),
                    try tx.records.imGroups.nextMessageSeq(groupID: "nope"),
                ]
            }
            #expect(versions == [1, 2, 0, 1, 2, 0])
            let attributes = try await store.read { try $0.records.imGroups.attributes(groupID: "g1") }
            #expect(attributes == GroupAttributes(values: ["a": "3", "b": "2"], version: 2))
            #expect(try await store.read { try $0.records.messages.lastMessageSeq(groupID: "g1") } == 2)
        }
    }

    // MARK: - Messages and read marks

    static func message(_ seq: Int64, from sender: String, time: Int64, text: String? = nil) -> StoredMessage {
        StoredMessage(
            groupID: "g1",
            seq: seq,
            msgID: "m\(seq)",
            sender: sender,
            time: time,
            priority: .normal,
            body: MessageBody(text: text ?? "message \(seq)"),
            eventSeq: 100 + seq
        )
    }

    /// Sends message `seq` the way the service does: numbers it, stores it, and notes it as the sender's own.
    static func send(_ seq: Int64, from sender: String, time: Int64, in tx: GroupTestTransaction) throws {
        #expect(try tx.records.imGroups.nextMessageSeq(groupID: "g1") == seq)
        try tx.records.messages.insertMessage(Self.message(seq, from: sender, time: time))
        try tx.records.messages.noteOwnMessage(groupID: "g1", userID: sender, seq: seq)
    }

    @Test(arguments: Engine.available)
    func messagesAreStoredReadRevokedAndDeleted(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1", "u2"], into: store)
            try await Self.group("g1", owner: "u1", members: ["u2"], into: store)
            try await store.write { tx throws in
                for seq in Int64(1)...4 { try Self.send(seq, from: seq == 3 ? "u2" : "u1", time: 1000 * seq, in: tx) }
            }
            try await store.read { tx throws in
                let ascending = try tx.records.messages.messages(groupID: "g1", in: 2...3, descending: false, limit: 10)
                #expect(ascending.map(\.seq) == [2, 3])
                let descending = try tx.records.messages.messages(groupID: "g1", in: 1...4, descending: true, limit: 2)
                #expect(descending.map(\.seq) == [4, 3])
                #expect(try tx.records.messages.message(groupID: "g1", msgID: "m3") == Self.message(3, from: "u2", time: 3000))
                #expect(try tx.records.messages.message(groupID: "g1", msgID: "m9") == nil)
            }
            try await store.write { tx throws in
                try tx.records.messages.revokeMessage(groupID: "g1", seq: 2, by: "u1")
            }
            let revoked = try await store.read { try $0.records.messages.message(groupID: "g1", msgID: "m2") }
            #expect(revoked?.body == nil && revoked?.sender == "u1")
            // The oldest first, at most the limit at a time.
            #expect(try await store.write { try $0.records.messages.deleteMessages(before: 3500, limit: 2) } == 2)
            #expect(try await store.read { try $0.records.messages.message(groupID: "g1", msgID: "m3") } != nil)
            #expect(try await store.write { try $0.records.messages.deleteMessages(before: 2500, limit: 2) } == 0)
            let kept = try await store.read {
                try $0.records.messages.messages(groupID: "g1", in: 1...9, descending: false, limit: 9)
            }
            #expect(kept.map(\.seq) == [3, 4])
            #expect(try await store.read { try $0.records.messages.lastMessageSeq(groupID: "g1") } == 4)
        }
    }

    @Test(arguments: Engine.available)
    func readMarksCountOwnMessagesMentionsAndLateJoiners(engine: Engine) async throws {
        try await engine.withGroupStore { store in
            try await Self.users(["u1", "u2", "u3"], into: store)
            try await Self.group("g1", type: .public, owner: "u1", members: ["u2"], into: store)
            try await store.write { tx throws in
                try Self.send(1, from: "u1", time: 10, in: tx)
                try Self.send(2, from: "u2", time: 20, in: tx)
                try Self.send(3, from: "u1", time: 30, in: tx)
                try tx.records.messages.noteMentions(groupID: "g1", userIDs: ["u2"], all: false, seq: 3)
                try tx.records.groups.insertMember(groupID: "g1", userID: "u3", role: .member, now: 40)
                let event = GroupEvent(kind: .memberEnter, groupID: "g1", actor: "u3", time: 40, joined: ["u3"])
                _ = try tx.appendEvent(event)
                try Self.send(4, from: "u2", time: 50, in: tx)
                try tx.records.messages.noteMentions(groupID: "g1", userIDs: [], all: true, seq: 4)
            }
            try await store.read { tx throws in
                // u1 was caught up when sending 1, then 2 came from u2: 3 is an own unread one.
                #expect(
                    try tx.records.messages.readMark(groupID: "g1", userID: "u1")
                        == ReadMark(
                            groupID: "g1",
                            type: .public,
                            receiveOption: .receive,
                            lastSeq: 4,
                            atAllSeq: 4,
                            baseSeq: 0,
                            readSeq: 1,
                            mentionSeq: 0,
                            ownUnread: 1
                        )
                )
                let u2 = try #require(try tx.records.messages.readMark(groupID: "g1", userID: "u2"))
                #expect(u2.readSeq == 0 && u2.ownUnread == 2 && u2.mentionSeq == 3)
                let u3 = try #require(try tx.records.messages.readMark(groupID: "g1", userID: "u3"))
                #expect(u3.baseSeq == 3 && u3.readSeq == 3)
                #expect(try tx.records.messages.readMark(groupID: "g1", userID: "nobody") == nil)
                #expect(try tx.records.messages.readMarks(userID: "u2").map(\.groupID) == ["g1"])
                #expect(try tx.records.messages.membersJoined(groupID: "g1", after: 3) == ["u3"])
                #expect(try tx.records.messages.membersJoined(groupID: "g1", after: 4) == [])
            }
            try await store.write { try $0.records.messages.setReadSeq(groupID: "g1", userID: "u2", seq: 1) }
            let u2 = try await store.read { try $0.records.messages.readMark(groupID: "g1", userID: "u2") }
            #expect(u2?.readSeq == 1 && u2?.ownUnread == 2)
            try await store.write { try $0.records.messages.setReadSeq(groupID: "g1", userID: "u2", seq: 3) }
            let later = try await store.read { try $0.records.messages.readMark(groupID: "g1", userID: "u2") }
            #expect(later?.readSeq == 3 && later?.ownUnread == 1)
        }
    }

    // MARK: - Several hosts (PostgreSQL)

    /// Two hosts, each with its own writer, add members to the same group at once, each checking the member limit
    /// against the count it read (through `group` or `groupAndMembership`): the group's row lock makes each host
    /// read the count the other committed, so the limit holds and the count is exact.
    @Test(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"))
    func theMemberLimitHoldsWhenTwoHostsAddMembersAtOnce() async throws {
        try await TestPostgres.withHosts(2) { hosts, reader in
            let store = PostgresGroupRecordsStore(writer: hosts[0], reader: reader)
            let limit = 10
            let candidates = (0..<30).map { "c\($0)" }
            try await Self.users(["owner"] + candidates, into: store)
            try await Self.group("g1", owner: "owner", into: store)
            let added = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, user) in candidates.enumerated() {
                    group.addTask {
                        try await hosts[index % 2].write { context in
                            let tx = PostgresTransaction(context)
                            // Half the writes lock the row through the read most group operations start with.
                            let found = try index % 4 < 2 ? tx.groups.group("g1") : tx.groups.groupAndMembership("g1", userID: user)?.group
                            guard let found, found.memberCount < limit else { return false }
                            // Hold the transaction a moment, so the other host's check meets it uncommitted.
                            usleep(2000)
                            try tx.groups.insertMember(groupID: "g1", userID: user, role: .member, now: 1)
                            return true
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(added == limit - 1)
            try await store.read { tx throws in
                #expect(try tx.records.groups.group("g1")?.memberCount == limit)
                #expect(try tx.records.groups.memberIDs(groupID: "g1").count == limit)
            }
            for host in hosts { try await host.close() }
            try await TestPostgres.blocking { reader.close() }
        }
    }

    /// How another host's transaction changes a member's standing while holding the group's row lock.
    enum StandingChange: String, CaseIterable, Sendable {
        /// The member's role only: the group's row is locked but not changed.
        case demoted
        /// The member removed: the group's row changes too (its member count).
        case removed
        /// The user added: a membership row the reader's statement could not have seen when it began.
        case added
    }

    /// A write that reads a group and the caller's membership while another host holds the group's row lock reads
    /// the membership that host committed, not the one before it: in PostgreSQL's READ COMMITTED, a statement that
    /// waits for a row lock sees the newest version of the row it locks, but every other row as of the moment it
    /// began, so a read that took the lock and the membership in one statement acted on a role, or a membership,
    /// the other host had just taken away.
    @Test(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), arguments: StandingChange.allCases)
    func theCallersMembershipIsReadAfterTheGroupLockIsHeld(change: StandingChange) async throws {
        try await TestPostgres.withHosts(2) { hosts, reader in
            let store = PostgresGroupRecordsStore(writer: hosts[0], reader: reader)
            try await Self.users(["owner", "u"], into: store)
            try await Self.group("g1", owner: "owner", members: change == .added ? [] : ["u"], into: store)
            if change == .demoted {
                try await store.write { tx throws in try tx.records.groups.setRole(groupID: "g1", userID: "u", role: .admin) }
            }
            let (locked, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            // Host B locks the group, changes u's standing, and holds its transaction open until released. `locked` is
            // signalled on every path, so a write that fails before the lock fails the test instead of hanging it.
            let holder = Task {
                defer { locked.signal() }
                try await hosts[1].write { context in
                    let tx = PostgresTransaction(context)
                    _ = try tx.groups.group("g1")
                    switch change {
                    case .demoted: try tx.groups.setRole(groupID: "g1", userID: "u", role: .member)
                    case .removed: try tx.groups.deleteMember(groupID: "g1", userID: "u")
                    case .added: try tx.groups.insertMember(groupID: "g1", userID: "u", role: .member, now: 2)
                    }
                    try context.connection.flush()
                    locked.signal()
                    release.wait()
                }
            }
            try await TestPostgres.blocking { locked.wait() }
            // Host A reads the group and u's membership, which waits for host B's lock.
            let read = Task {
                try await hosts[0].write { context in
                    try PostgresTransaction(context).groups.groupAndMembership("g1", userID: "u").map { ($0.group.memberCount, $0.membership?.role) }
                }
            }
            let waiting: Bool
            do {
                // Released on every path, so a failed poll ends host B's transaction instead of leaving it open.
                defer { release.signal() }
                waiting = try await Eventually.until {
                    try await TestPostgres.blocking {
                        try reader.query(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                        ).first?.decode(Int64.self) ?? 0 > 0
                    }
                }
            }
            try await holder.value
            #expect(waiting, "host A's read never waited for host B's lock")
            let (count, role) = try #require(try await read.value)
            switch change {
            case .demoted:
                #expect(count == 2)
                #expect(role == .member)
            case .removed:
                #expect(count == 1)
                #expect(role == nil)
            case .added:
                #expect(count == 2)
                #expect(role == .member)
            }
            for host in hosts { try await host.close() }
            try await TestPostgres.blocking { reader.close() }
        }
    }
}
