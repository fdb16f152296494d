import Foundation
import GuildCore
import GuildPostgres
import GuildProtocol
import GuildTestSupport
import Synchronization
import Testing

/// The PostgreSQL store as the domain services use it, with two hosts (two stores, each with its own writer,
/// readers and follower) on one database: what one host writes, the other reads, replays and hears of, in
/// sequence order, exactly once.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresStoreTests {
    /// Two stores on a fresh database.
    static func withTwoHosts<T: Sendable>(_ body: @Sendable (PostgresStore, PostgresStore) async throws -> T) async throws -> T {
        try await TestPostgres.withDatabase { location in
            let configuration = PostgresStore.Configuration(location: location, readers: 2, pollInterval: .milliseconds(100))
            let a = try await TestPostgres.blocking { try PostgresStore(configuration: configuration, logger: TestPostgres.logger) }
            let b = try await TestPostgres.blocking { try PostgresStore(configuration: configuration, logger: TestPostgres.logger) }
            do {
                let value = try await body(a, b)
                try await a.close()
                try await b.close()
                return value
            } catch {
                try? await a.close()
                try? await b.close()
                throw error
            }
        }
    }

    static func users(_ store: PostgresStore) async throws -> UserService {
        try await UserService(
            store: store,
            hasher: PasswordHasher(logN: 4),
            deletionSteps: [GroupService.removeDeletedUser, ObjectService.removeDeletedUser, ThingService.removeDeletedUser]
        )
    }

    @Test func aUserRegisteredThroughOneHostLogsInThroughTheOther() async throws {
        try await Self.withTwoHosts { a, b in
            let (usersA, usersB) = (try await Self.users(a), try await Self.users(b))
            let (alice, session) = try await usersA.register(
                identity: LoginIdentity(username: "alice"),
                password: "correct horse",
                displayName: "Alice",
                fields: nil
            )
            let (again, _) = try await usersB.login(identity: LoginIdentity(username: "ALICE"), password: "correct horse")
            #expect(again.id == alice.id && again.displayName == "Alice")
            // The session host A opened is valid on host B.
            #expect(try await usersB.resolve(accessToken: session.accessToken.text).user.id == alice.id)
            await #expect(throws: GuildError.self) {
                _ = try await usersB.register(identity: LoginIdentity(username: "alice"), password: "x", displayName: nil, fields: nil)
            }
        }
    }

    @Test func eachHostHearsEveryHostsEventsInSequenceOrderExactlyOnce() async throws {
        try await Self.withTwoHosts { a, b in
            let heardA = Mutex<[Int64]>([])
            let heardB = Mutex<[Int64]>([])
            a.onCommittedEvents { events in heardA.withLock { $0 += events.map(\.seq) } }
            b.onCommittedEvents { events in heardB.withLock { $0 += events.map(\.seq) } }
            let (usersA, usersB) = (try await Self.users(a), try await Self.users(b))
            let (groupsA, groupsB) = (GroupService(store: a), GroupService(store: b))
            // Both hosts create groups and add members at once.
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for (host, (users, groups)) in [(usersA, groupsA), (usersB, groupsB)].enumerated() {
                    tasks.addTask {
                        for index in 0..<10 {
                            let (owner, session) = try await users.registerPseudo(displayName: "o\(host)-\(index)", fields: nil)
                            let (member, _) = try await users.registerPseudo(displayName: "m\(host)-\(index)", fields: nil)
                            let (group, _) = try await groups.create(
                                caller: caller(session, owner),
                                name: "g\(host)-\(index)",
                                groupID: nil,
                                type: .basic,
                                members: []
                            )
                            _ = try await groups.addMembers(caller: caller(session, owner), groupID: group.id, userIDs: [member.id])
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            let head = try await a.eventSnapshot(userID: nil).head
            #expect(head > 0)
            let deadline = ContinuousClock.now + .seconds(60)
            func heardAll() -> Bool { heardA.withLock({ $0.count }) >= head && heardB.withLock({ $0.count }) >= head }
            while !heardAll(), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(heardA.withLock { $0 } == Array(1...head))
            #expect(heardB.withLock { $0 } == Array(1...head))
        }
    }

    /// A cache on one host drops what another host changed: the store's after-commit hooks hear of every host's
    /// commits, through their events.
    @Test func afterCommitHooksHearOfTheOtherHostsChanges() async throws {
        try await Self.withTwoHosts { a, b in
            let dropped = Mutex<Set<RecordKey>>([])
            b.afterCommit { changed in dropped.withLock { $0.formUnion(changed) } }
            let users = try await Self.users(a)
            let (owner, session) = try await users.registerPseudo(displayName: "owner", fields: nil)
            let (group, _) = try await GroupService(store: a).create(
                caller: caller(session, owner),
                name: "g",
                groupID: nil,
                type: .basic,
                members: []
            )
            let key = RecordKey(area: "group", id: group.id)
            let deadline = ContinuousClock.now + .seconds(60)
            while !dropped.withLock({ $0.contains(key) }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(dropped.withLock { $0.contains(key) }, "host B's hooks heard of the group host A created")
        }
    }

    /// Two hosts bind and unbind one thing at once, many times over: each change of its presence is serialized
    /// by the thing's row lock, so its owner hears `thingConnected` and `thingDisconnected` alternately, once per
    /// real change, and the thing ends as the hosts left it.
    @Test func twoHostsChangingOneThingsPresenceAtOnceTellItsOwnerOncePerChange() async throws {
        try await Self.withTwoHosts { a, b in
            let users = try await Self.users(a)
            let (owner, session) = try await users.registerPseudo(displayName: "owner", fields: nil)
            let hostA = ThingService(store: a, hasher: PasswordHasher(logN: 4), generations: users.generations)
            var otherHost = ThingService(store: b, hasher: PasswordHasher(logN: 4), generations: users.generations)
            otherHost.presenceHost = PresenceHost()
            let hostB = otherHost
            let (lamp, _) = try await hostA.onboard(
                caller: caller(session, owner),
                vendorThingID: "lamp-race",
                password: "pw",
                owner: .user(owner.id),
                thingType: nil,
                firmwareVersion: nil,
                properties: nil
            )
            for round in 0..<20 {
                let bound = round % 2 == 0
                async let onA: Void = hostA.setOnline(thingID: lamp.thingID) { bound }
                async let onB: Void = hostB.setOnline(thingID: lamp.thingID) { bound }
                try await onA
                try await onB
                // One host lets go first: still online while the other has it.
                if bound {
                    try await hostA.setOnline(thingID: lamp.thingID) { false }
                    #expect(try await b.read { try $0.things.thing(id: lamp.thingID) }?.online == true)
                    try await hostA.setOnline(thingID: lamp.thingID) { true }
                }
            }
            #expect(try await a.read { try $0.things.thing(id: lamp.thingID) }?.online == false)
            let kinds = try await b.replay(userID: owner.id, after: 0, through: .max, limit: 1_000).map(\.kind)
                .filter { $0 == "thingConnected" || $0 == "thingDisconnected" }
            #expect(kinds == Array(repeating: ["thingConnected", "thingDisconnected"], count: 10).flatMap { $0 }, "\(kinds)")
        }
    }

    @Test func replayThroughOneHostShowsAMemberWhatTheOtherWrote() async throws {
        try await Self.withTwoHosts { a, b in
            let users = try await Self.users(a)
            let (owner, session) = try await users.registerPseudo(displayName: "owner", fields: nil)
            let (member, _) = try await users.registerPseudo(displayName: "member", fields: nil)
            let (stranger, _) = try await users.registerPseudo(displayName: "stranger", fields: nil)
            let groups = GroupService(store: a)
            let (group, _) = try await groups.create(caller: caller(session, owner), name: "g", groupID: nil, type: .basic, members: [])
            _ = try await groups.addMembers(caller: caller(session, owner), groupID: group.id, userIDs: [member.id])
            let snapshot = try await b.eventSnapshot(userID: member.id)
            #expect(snapshot.following.contains(EventTopic.group(group.id)))
            let seen = try await b.replay(userID: member.id, after: 0, through: snapshot.head, limit: 100)
            #expect(!seen.isEmpty && seen.allSatisfy { $0.topic == EventTopic.group(group.id) })
            let unseen = try await b.replay(userID: stranger.id, after: 0, through: snapshot.head, limit: 100)
            #expect(unseen.isEmpty)
            #expect(try await b.integrityCheck() == ["ok"])
        }
    }

    /// Both members of one group send through both hosts at once and mark the group read in between: the
    /// group's row lock, which every send and read mark takes first, keeps the message numbers gap-free and
    /// each member's unread count exactly the other's messages after their read mark.
    @Test func unreadCountsStayExactWhenTwoHostsSendAndMarkReadAtOnce() async throws {
        try await Self.withTwoHosts { a, b in
            let users = try await Self.users(a)
            let (u1, s1) = try await users.registerPseudo(displayName: "u1", fields: nil)
            let (u2, s2) = try await users.registerPseudo(displayName: "u2", fields: nil)
            let hosts = [GroupService(store: a), GroupService(store: b)]
            let (group, _) = try await hosts[0].create(
                caller: caller(s1, u1),
                name: "g",
                groupID: nil,
                type: .public,
                members: [.init(userID: u2.id)]
            )
            let perTask = 40
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for groups in hosts {
                    for (session, user) in [(s1, u1), (s2, u2)] {
                        tasks.addTask {
                            for index in 0..<perTask {
                                _ = try await groups.sendMessage(caller: caller(session, user), groupID: group.id, text: "\(user.id) \(index)")
                                if index % 2 == 1 { _ = try await groups.markRead(caller: caller(session, user), groupID: group.id, seq: nil) }
                            }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            let sent = Int64(4 * perTask)
            let messages = try await b.read { tx in try tx.messages.messages(groupID: group.id, in: 1...(2 * sent), descending: false, limit: 1000) }
            #expect(messages.map(\.seq) == Array(1...sent))
            for (session, user) in [(s1, u1), (s2, u2)] {
                let count = try #require(try await hosts[1].unreadCounts(caller: caller(session, user), groupID: group.id).first)
                let othersAfterMark = messages.filter { $0.seq > count.readSeq && $0.sender != user.id }.count
                #expect(count.unread == Int64(othersAfterMark), "\(user.id): read to \(count.readSeq)")
                #expect(count.readSeq > 0, "\(user.id) marked the group read")
            }
        }
    }
}
