import Foundation
import GuildCore
import GuildJSON
import GuildPostgres
import GuildStore
import GuildTestSupport
import Synchronization
import Testing

extension Engine {
    /// Runs `body` with a fresh, empty, whole store of this engine, as the daemon opens it (every area, the event
    /// log, its followers): a `SQLiteStore` in a temporary directory, or a `PostgresStore` on a database of its
    /// own; closes and removes it afterwards.
    func withWholeStore<T: Sendable>(_ body: (any Store) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let temp = try TemporaryStore()
            defer { temp.remove() }
            return try await body(temp.store)
        case .postgres:
            return try await TestPostgres.withDatabase { location in
                let configuration = PostgresStore.Configuration(location: location, readers: 2, pollInterval: .milliseconds(100))
                let store = try await TestPostgres.blocking { try PostgresStore(configuration: configuration, logger: TestPostgres.logger) }
                do {
                    let value = try await body(store)
                    try await store.close()
                    return value
                } catch {
                    try? await store.close()
                    throw error
                }
            }
        }
    }
}

/// The event log behaves the same on every engine, as subscriptions read it through ``EventRepository``: the
/// same numbers, the same JSON, the same events for the same user and installation, the same pruning, and
/// the same committed events handed on. Every event comes from the domain services, as the daemon's would.
@Suite(.timeLimit(.minutes(10)))
struct EventRepositoryConformanceTests {
    /// The domain services on one store, reading time from one clock the test moves.
    struct World: Sendable {
        let store: any Store
        let clock: TestClock
        let users: UserService
        let groups: GroupService
        let objects: ObjectService
        let things: ThingService

        init(_ store: any Store) async throws {
            let clock = TestClock()
            self.store = store
            self.clock = clock
            self.users = try await UserService(
                store: store,
                hasher: PasswordHasher(logN: 4),
                deletionSteps: DeletionSteps.user,
                now: { clock.now }
            )
            self.groups = GroupService(
                store: store,
                now: { clock.now },
                deletionSteps: DeletionSteps.group
            )
            self.objects = ObjectService(store: store, now: { clock.now })
            self.things = ThingService(store: store, hasher: PasswordHasher(logN: 4), generations: self.users.generations, now: { clock.now })
        }

        /// A pseudo user and the caller of their session.
        func pseudo(_ name: String) async throws -> (caller: Caller, id: String) {
            let (user, session) = try await self.users.registerPseudo(displayName: name, fields: nil)
            return (caller(session, user), user.id)
        }

        /// A user with a username and password, and the caller of their session.
        func user(_ name: String) async throws -> (caller: Caller, id: String) {
            let (user, session) = try await self.users.register(identity: .init(username: name), password: "pass", displayName: name, fields: nil)
            return (caller(session, user), user.id)
        }

        /// A Basic group `id` owned by `owner`, with `members`.
        func group(_ id: String, _ owner: Caller, members: [String] = []) async throws {
            _ = try await self.groups.create(caller: owner, name: id, groupID: id, type: .basic, members: members.map { .init(userID: $0) })
        }

        /// Renames a group; returns the event's sequence number (the head after it).
        @discardableResult
        func rename(_ groupID: String, _ caller: Caller, to name: String) async throws -> Int64 {
            _ = try await self.groups.rename(caller: caller, groupID: groupID, name: name)
            return try await self.head()
        }

        /// Thing `lamp-1` onboarded by `owner`, who owns it; its thing and access token.
        func lamp(owner: (caller: Caller, id: String), thingType: String? = nil) async throws -> (thing: Thing, accessToken: Token) {
            try await self.things.onboard(
                caller: owner.caller,
                vendorThingID: "lamp-1",
                password: "pw",
                owner: .user(owner.id),
                thingType: thingType,
                firmwareVersion: nil,
                properties: nil
            )
        }

        /// Thing `lamp-1` onboarded by `owner`: its id, the caller of a connection bound to its token, and a
        /// command request (`turnPower`) issued by `owner`.
        func boundLamp(owner: (caller: Caller, id: String)) async throws -> (thingID: String, caller: Caller, request: CommandRequest) {
            let (thing, token) = try await self.lamp(owner: owner)
            let caller = Caller(
                peer: .init(uid: 1000, gid: 1000, pid: 2),
                isAdmin: false,
                session: try await self.users.resolve(accessToken: token.text)
            )
            let request = CommandRequest(actions: [["turnPower": ["power": true]]], issuer: .user(owner.id), schema: "SmartLight", schemaVersion: 1)
            return (thing.thingID, caller, request)
        }

        /// The log's head.
        func head() async throws -> Int64 { try await self.store.eventSnapshot(userID: nil).head }

        /// What `userID` (nil: everything), bound to `installationID`, replays from the start.
        func replay(
            _ userID: String?,
            installationID: String? = nil,
            after: Int64 = 0,
            through: Int64 = .max,
            limit: Int = 10_000
        )
            async throws -> [StoredEvent]
        {
            try await self.store.replay(userID: userID, installationID: installationID, after: after, through: through, limit: limit)
        }

        /// The sequence numbers `userID` replays from the start.
        func seqs(_ userID: String?, installationID: String? = nil) async throws -> [Int64] {
            try await self.replay(userID, installationID: installationID).map(\.seq)
        }
    }

    /// What a committed-event sink heard, in order.
    final class Heard: Sendable {
        private let events = Mutex<[CommittedEvent]>([])

        func hear(_ batch: [CommittedEvent]) { self.events.withLock { $0 += batch } }

        var all: [CommittedEvent] { self.events.withLock { $0 } }

        /// Waits until the sink has heard an event numbered `seq` or later (up to a minute: PostgreSQL's follower
        /// reads the log after the commit).
        func wait(for seq: Int64) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while self.events.withLock({ ($0.last?.seq ?? 0) < seq }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// What a write that fails on purpose, after appending, throws.
    struct Abandon: Error {}

    /// Runs `body` with the services on a fresh whole store of `engine`.
    static func withWorld<T: Sendable>(_ engine: Engine, _ body: (World) async throws -> T) async throws -> T {
        try await engine.withWholeStore { store in try await body(try await World(store)) }
    }

    /// The members of an event's JSON.
    static func members(_ event: StoredEvent) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(event.json)) as? [String: Any])
    }

    // MARK: - Snapshot and numbering

    @Test(arguments: Engine.available)
    func aFreshStoreHasAnEmptyLogWhoseOldestIsPastItsHead(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            for userID in [nil, "nobody"] {
                let snapshot = try await world.store.eventSnapshot(userID: userID)
                #expect(snapshot.head == 0 && snapshot.oldest == 1 && snapshot.following.isEmpty)
            }
            // A user alone appends nothing.
            let alice = try await world.pseudo("alice")
            #expect(try await world.head() == 0)
            #expect(try await world.replay(nil).isEmpty)
            #expect(try await world.replay(alice.id).isEmpty)
            #expect(try await world.store.pruneEvents(keepCount: 0, maxAgeMilliseconds: 0, now: world.clock.now) == 0)
            #expect(try await world.store.eventSnapshot(userID: nil).oldest == 1)
        }
    }

    @Test(arguments: Engine.available)
    func aReplayedStateIsItsThingsOwnAndAnOldFullBodyReplaysAsItWas(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let alice = try await world.user("alice")
            let bob = try await world.user("bob")
            let lamp = try await world.lamp(owner: alice).thing
            // Logged before states were named: the whole state in the body, with a NUL that jsonb cannot hold.
            try await world.store.write { tx in
                _ = try tx.append(
                    ThingEvent(
                        kind: .thingStateChanged,
                        thingID: lamp.thingID,
                        time: 1,
                        audience: .owners([.user(alice.id)]),
                        members: ["state": .object(["s": .string("a\u{0}b")]), "timestamp": .int(1)]
                    )
                )
            }
            _ = try await world.things.putState(caller: alice.caller, thingID: lamp.thingID, state: ["secret": "alice's"], timestamp: nil)
            // Deleting the thing deletes its history; SQLite then gives the highest row ids out again.
            try await world.things.delete(caller: alice.caller, thingID: lamp.thingID)
            let box = try await world.things.onboard(
                caller: bob.caller,
                vendorThingID: "box-1",
                password: "pw",
                owner: .user(bob.id),
                thingType: nil,
                firmwareVersion: nil,
                properties: nil
            ).thing
            _ = try await world.things.putState(caller: bob.caller, thingID: box.thingID, state: ["secret": "bob's"], timestamp: nil)

            let replayed = try await world.replay(alice.id).map { String(decoding: $0.json, as: UTF8.self) }
                .filter { $0.contains("thingStateChanged") }
            #expect(replayed.count == 2, "\(replayed)")
            #expect(replayed.first?.contains(#""state":{"s":"a\u0000b"}"#) == true, "\(replayed)")
            #expect(replayed.last?.contains(#""state":null"#) == true, "the deleted thing's state is gone: \(replayed)")
            #expect(!replayed.joined().contains("bob's"), "never another thing's state")
            let bobs = try await world.replay(bob.id).map { String(decoding: $0.json, as: UTF8.self) }
            #expect(bobs.contains { $0.contains(#""state":{"secret":"bob's"}"#) })
        }
    }

    @Test(arguments: Engine.available)
    func eventsOfEveryAreaAreNumberedOneToNInCommitOrderAndReplayWithTheirExactJSON(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.user("owner")
            let member = try await world.pseudo("member")
            try await world.group("g1", owner.caller, members: [member.id])
            let renamed = try await world.rename("g1", owner.caller, to: "Renamed")
            try await world.group("g2", owner.caller)
            _ = try await world.objects.create(caller: owner.caller, scope: .group("g1"), bucket: "notes", body: ["text": "hi"], objectID: "o1")
            let (thing, _) = try await world.lamp(owner: owner)
            let request = CommandRequest(actions: [["turnPower": ["power": true]]], issuer: .user(owner.id), schema: "SmartLight", schemaVersion: 1)
            _ = try await world.things.send(caller: owner.caller, thingID: thing.thingID, request: request)
            _ = try await world.groups.removeMembers(caller: owner.caller, groupID: "g1", userIDs: [member.id])

            let expected: [(EventTopic, String)] = [
                (.group("g1"), "groupCreated"),
                (.group("g1"), "groupInfoChanged"),
                (.group("g2"), "groupCreated"),
                (.bucket(scope: .group("g1"), name: "notes"), "objectCreated"),
                (.thing(thing.thingID), "thingOwnerAdded"),
                (.thing(thing.thingID), "commandReceived"),
                (.group("g1"), "memberKicked"),
            ]
            let head = try await world.head()
            #expect(head == Int64(expected.count))
            let events = try await world.replay(nil, through: head)
            #expect(events.map(\.seq) == Array(1...head))
            #expect(events.map(\.topic) == expected.map(\.0))
            #expect(events.map(\.kind) == expected.map(\.1))
            for event in events {
                #expect(event.json.starts(with: Array(#"{"seq":\#(event.seq),"#.utf8)), "\(String(decoding: event.json, as: UTF8.self))")
                let members = try Self.members(event)
                #expect(members["seq"] as? Int == Int(event.seq))
                #expect(members["kind"] as? String == event.kind)
            }
            // The JSON exactly as subscribers receive it.
            let rename = try #require(events.first { $0.seq == renamed })
            #expect(
                String(decoding: rename.json, as: UTF8.self)
                    == #"{"seq":2,"actor":"\#(owner.id)","changes":{"changeTypes":[1],"name":"Renamed"},"groupID":"g1","kind":"groupInfoChanged","#
                    + #""time":\#(world.clock.now),"users":[]}"#
            )
        }
    }

    // MARK: - Paging

    @Test(arguments: Engine.available)
    func pagesAfterTheLastSeqCoverTheLogOnceInOrderAndThroughBoundsTheEnd(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.pseudo("owner")
            let member = try await world.pseudo("member")
            try await world.group("g", owner.caller)
            for index in 0..<10 { try await world.rename("g", owner.caller, to: "n\(index)") }
            _ = try await world.groups.addMembers(caller: owner.caller, groupID: "g", userIDs: [member.id])
            for index in 10..<22 { try await world.rename("g", owner.caller, to: "n\(index)") }
            let head = try await world.head()
            #expect(head == 24)

            for userID in [nil, member.id] {
                let all = try await world.replay(userID, through: head)
                var paged: [StoredEvent] = []
                var after: Int64 = 0
                while true {
                    let page = try await world.replay(userID, after: after, through: head, limit: 5)
                    #expect(page.count <= 5)
                    guard let last = page.last else { break }
                    #expect(page.first!.seq > after)
                    paged += page
                    after = last.seq
                }
                #expect(paged.map(\.seq) == all.map(\.seq))
                #expect(paged.map(\.json) == all.map(\.json))
                #expect(Set(paged.map(\.seq)).count == paged.count)
            }
            #expect(try await world.seqs(member.id) == Array(12...24), "the member sees from their joining on")

            // `through` bounds the end, `after` the start, `limit` the count.
            #expect(try await world.replay(nil, after: 5, through: 12).map(\.seq) == Array(6...12))
            #expect(try await world.replay(nil, after: 5, through: 12, limit: 3).map(\.seq) == [6, 7, 8])
            #expect(try await world.replay(member.id, after: 0, through: 14, limit: 100).map(\.seq) == [12, 13, 14])
            #expect(try await world.replay(member.id, after: 0, through: 11, limit: 100).isEmpty)
            #expect(try await world.replay(nil, after: 12, through: 12).isEmpty)
            #expect(try await world.replay(nil, after: 12, through: 3).isEmpty)
            #expect(try await world.replay(nil, after: head, through: .max).isEmpty)
            #expect(try await world.replay(nil, after: 20, through: .max).map(\.seq) == [21, 22, 23, 24])
            #expect(try await world.replay(nil, after: 0, through: head, limit: 0).isEmpty)
        }
    }

    // MARK: - Who replays what

    @Test(arguments: Engine.available)
    func aUserReplaysAGroupsEventsFromWhileTheyWereAMemberAndThoseNamingThem(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.pseudo("owner")
            let member = try await world.pseudo("member")
            let quitter = try await world.pseudo("quitter")
            let stranger = try await world.pseudo("stranger")
            try await world.group("g", owner.caller, members: [quitter.id])
            let created = try await world.head()
            try await world.group("other", stranger.caller)
            let otherCreated = try await world.head()
            let before = try await world.rename("g", owner.caller, to: "before")
            _ = try await world.groups.addMembers(caller: owner.caller, groupID: "g", userIDs: [member.id])
            let invited = try await world.head()
            let during = try await world.rename("g", owner.caller, to: "during")
            _ = try await world.objects.create(caller: owner.caller, scope: .group("g"), bucket: "box", body: ["n": 1], objectID: "o1")
            let objectDuring = try await world.head()
            // The quitter leaves: `memberLeave` to the members (the quitter too), `quitFromGroup` to the quitter alone.
            _ = try await world.groups.removeMembers(caller: quitter.caller, groupID: "g", userIDs: [quitter.id])
            let quit = try await world.head()
            _ = try await world.groups.removeMembers(caller: owner.caller, groupID: "g", userIDs: [member.id])
            let kicked = try await world.head()
            let after = try await world.rename("g", owner.caller, to: "after")
            _ = try await world.objects.create(caller: owner.caller, scope: .group("g"), bucket: "box", body: ["n": 2], objectID: "o2")
            let objectAfter = try await world.head()
            _ = try await world.groups.addMembers(caller: owner.caller, groupID: "g", userIDs: [member.id])
            let invitedAgain = try await world.head()
            let again = try await world.rename("g", owner.caller, to: "again")

            let kinds = Dictionary(uniqueKeysWithValues: try await world.replay(nil).map { ($0.seq, $0.kind) })
            #expect(kinds[quit - 1] == "memberLeave" && kinds[quit] == "quitFromGroup" && kinds[kicked] == "memberKicked")
            #expect(try await world.seqs(member.id) == [invited, during, objectDuring, quit - 1, kicked, invitedAgain, again])
            #expect(try await world.seqs(quitter.id) == [created, before, invited, during, objectDuring, quit - 1, quit])
            #expect(
                try await world.seqs(owner.id)
                    == [created, before, invited, during, objectDuring, quit - 1, kicked, after, objectAfter, invitedAgain, again]
            )
            #expect(try await world.seqs(stranger.id) == [otherCreated])
            #expect(try await world.seqs("nobody").isEmpty)
            // Replay's rule is the user's own: an installation adds no group or object events.
            #expect(try await world.seqs(stranger.id, installationID: "in.any") == [otherCreated])
        }
    }

    @Test(arguments: Engine.available)
    func aMemberWhoReceivesNoMessagesReplaysNoneButTheOtherEvents(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.pseudo("owner")
            let member = try await world.pseudo("member")
            _ = try await world.groups.create(caller: owner.caller, name: "w", groupID: "w1", type: .work, members: [.init(userID: member.id)])
            let first = try await world.groups.sendMessage(caller: owner.caller, groupID: "w1", text: "one")
            let firstSeq = try await world.head()
            try await world.groups.setReceiveOption(caller: member.caller, groupID: "w1", option: .notReceive)
            let second = try await world.groups.sendMessage(caller: owner.caller, groupID: "w1", text: "two")
            let secondSeq = try await world.head()
            let renamed = try await world.rename("w1", owner.caller, to: "w2")
            #expect(first == 1 && second == 2)
            let seen = try await world.seqs(member.id)
            #expect(seen.contains(firstSeq) && !seen.contains(secondSeq) && seen.contains(renamed))
            #expect(try await world.seqs(owner.id).contains(secondSeq))
        }
    }

    @Test(arguments: Engine.available)
    func aRecalledMessageReplaysInItsOwnPlaceWithoutItsBody(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.pseudo("owner")
            let member = try await world.pseudo("member")
            _ = try await world.groups.create(caller: owner.caller, name: "w", groupID: "w1", type: .work, members: [.init(userID: member.id)])
            _ = try await world.groups.sendMessage(caller: owner.caller, groupID: "w1", text: "secret")
            let sentSeq = try await world.head()
            let msgID = try #require(
                try await world.groups.history(caller: owner.caller, groupID: "w1", seq: nil, direction: .older, count: 1).messages.first?.msgID
            )
            try await world.groups.recallMessage(caller: owner.caller, groupID: "w1", msgID: msgID)
            let replayed = try #require(try await world.replay(member.id).first { $0.seq == sentSeq })
            let members = try Self.members(replayed)
            #expect(members["kind"] as? String == "newMessage" && members["actor"] as? String == owner.id)
            let changes = try #require(members["changes"] as? [String: Any])
            #expect(changes["revoked"] as? Bool == true && changes["text"] == nil && changes["msgID"] as? String == msgID)
            #expect(try await world.replay(member.id).last.map { try Self.members($0)["kind"] as? String } == "messageRevoked")
        }
    }

    @Test(arguments: Engine.available)
    func aSnapshotFollowsTheGroupsTheUserIsAMemberOfAtItsHead(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.user("owner")
            let user = try await world.user("user")
            try await world.group("g1", owner.caller, members: [user.id])
            try await world.group("g2", owner.caller)
            try await world.group("g3", owner.caller, members: [user.id])
            try await world.group("g4", owner.caller, members: [user.id])
            _ = try await world.groups.addMembers(caller: owner.caller, groupID: "g2", userIDs: [user.id])
            _ = try await world.groups.removeMembers(caller: owner.caller, groupID: "g3", userIDs: [user.id])
            try await world.groups.delete(caller: owner.caller, groupID: "g4")
            // Buckets and things are not followed: owning a thing and writing objects add no topic.
            _ = try await world.lamp(owner: user)
            _ = try await world.objects.create(caller: user.caller, scope: .user(user.id), bucket: "box", body: ["n": 1], objectID: nil)
            _ = try await world.objects.create(caller: user.caller, scope: .group("g1"), bucket: "box", body: ["n": 1], objectID: nil)

            let head = try await world.head()
            let snapshot = try await world.store.eventSnapshot(userID: user.id)
            #expect(snapshot.head == head && snapshot.oldest == 1)
            #expect(snapshot.following == [.group("g1"), .group("g2")])
            #expect(snapshot.groups == ["g1", "g2"])
            #expect(try await world.store.eventSnapshot(userID: owner.id).following == [.group("g1"), .group("g2"), .group("g3")])
            #expect(try await world.store.eventSnapshot(userID: nil).following.isEmpty)
            #expect(try await world.store.eventSnapshot(userID: "nobody").following.isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func aCommandsResultReplaysOnlyOnTheInstallationsItIsAddressedTo(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let alice = try await world.user("alice")
            let pseudo = try await world.pseudo("pseudo")
            let (thing, token) = try await world.lamp(owner: alice, thingType: "LED")
            let thingCaller = Caller(
                peer: .init(uid: 1000, gid: 1000, pid: 2),
                isAdmin: false,
                session: try await world.users.resolve(accessToken: token.text)
            )
            try await world.things.addOwner(caller: pseudo.caller, thingID: thing.thingID, owner: .user(pseudo.id), password: nil)
            let phone = try await world.things.registerInstallation(
                caller: alice.caller,
                deviceType: "ANDROID",
                registrationID: "a1",
                development: false
            )
            let tablet = try await world.things.registerInstallation(
                caller: alice.caller,
                deviceType: "IOS",
                registrationID: "a2",
                development: false
            )
            var pseudoCaller = pseudo.caller
            let sending = try await world.things.registerInstallation(
                caller: pseudoCaller,
                deviceType: "ANDROID",
                registrationID: "p1",
                development: false
            )
            let other = try await world.things.registerInstallation(
                caller: pseudoCaller,
                deviceType: "ANDROID",
                registrationID: "p2",
                development: false
            )
            pseudoCaller.installationID = sending.installationID
            var aliceCaller = alice.caller
            aliceCaller.installationID = phone.installationID
            var results: [String: Int64] = [:]
            for (name, caller, issuer) in [("alice", aliceCaller, alice.id), ("pseudo", pseudoCaller, pseudo.id)] {
                let request = CommandRequest(actions: [["turnPower": ["power": true]]], issuer: .user(issuer), schema: "SmartLight", schemaVersion: 1)
                let command = try await world.things.send(caller: caller, thingID: thing.thingID, request: request)
                _ = try await world.things.putResults(
                    caller: thingCaller,
                    thingID: thing.thingID,
                    commandID: command.commandID,
                    results: [["turnPower": ["succeeded": true]]]
                )
                results[name] = try await world.head()
            }
            let (aliceResult, pseudoResult) = (try #require(results["alice"]), try #require(results["pseudo"]))
            let kinds = Dictionary(uniqueKeysWithValues: try await world.replay(nil).map { ($0.seq, $0.kind) })
            #expect(kinds[aliceResult] == "commandResult" && kinds[pseudoResult] == "commandResult")

            // A normal user's result: on each of their installations, never without one.
            #expect(try await world.seqs(alice.id, installationID: phone.installationID).contains(aliceResult))
            #expect(try await world.seqs(alice.id, installationID: tablet.installationID).contains(aliceResult))
            #expect(try await !world.seqs(alice.id).contains(aliceResult))
            #expect(try await !world.seqs(alice.id, installationID: "in.unknown").contains(aliceResult))
            // A pseudo user's: on the installation it sent from only.
            #expect(try await world.seqs(pseudo.id, installationID: sending.installationID).contains(pseudoResult))
            #expect(try await !world.seqs(pseudo.id, installationID: other.installationID).contains(pseudoResult))
            #expect(try await !world.seqs(pseudo.id).contains(pseudoResult))
            // Each result reaches only its own sender's installations.
            #expect(try await !world.seqs(alice.id, installationID: phone.installationID).contains(pseudoResult))
            #expect(try await !world.seqs(pseudo.id, installationID: sending.installationID).contains(aliceResult))
            // The thing replays the commands it received, not their results.
            let thingKinds = try await world.replay(thing.thingID).map(\.kind)
            #expect(thingKinds.filter { $0 == "commandReceived" }.count == 2 && !thingKinds.contains("commandResult"))
        }
    }

    // MARK: - Pruning

    @Test(arguments: Engine.available)
    func pruningHonoursKeepCountAndMaxAgeAndReplayStartsAtTheOldestKept(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.pseudo("owner")
            let member = try await world.pseudo("member")
            let visitor = try await world.pseudo("visitor")
            let store = world.store
            let day: Int64 = 86_400_000
            try await world.group("g", owner.caller, members: [member.id])  // 1
            _ = try await world.groups.addMembers(caller: owner.caller, groupID: "g", userIDs: [visitor.id])  // 2
            _ = try await world.groups.removeMembers(caller: owner.caller, groupID: "g", userIDs: [visitor.id])  // 3
            try await world.rename("g", owner.caller, to: "r1")  // 4
            world.clock.advance(seconds: 3600)
            for index in 2...7 { try await world.rename("g", owner.caller, to: "r\(index)") }  // 5...10
            #expect(try await world.head() == 10)
            #expect(try await world.seqs(visitor.id) == [2, 3])

            // keepCount: the newest 8 stay.
            #expect(try await store.pruneEvents(keepCount: 8, maxAgeMilliseconds: day, now: world.clock.now) == 2)
            var snapshot = try await store.eventSnapshot(userID: nil)
            #expect(snapshot.head == 10 && snapshot.oldest == 3)
            #expect(try await world.seqs(nil) == Array(3...10))
            #expect(try await world.seqs(visitor.id) == [3])

            // maxAge: the two events of an hour ago go.
            #expect(try await store.pruneEvents(keepCount: 100, maxAgeMilliseconds: 1_800_000, now: world.clock.now) == 2)
            snapshot = try await store.eventSnapshot(userID: member.id)
            #expect(snapshot.head == 10 && snapshot.oldest == 5 && snapshot.following == [.group("g")])
            #expect(try await world.seqs(nil) == Array(5...10))
            #expect(try await store.pruneEvents(keepCount: 100, maxAgeMilliseconds: 1_800_000, now: world.clock.now) == 0)
            // A member since before the oldest kept still replays what is kept; a former member, nothing.
            #expect(try await world.seqs(member.id) == Array(5...10))
            #expect(try await world.seqs(visitor.id).isEmpty)

            // Both at once: whichever drops more.
            #expect(try await store.pruneEvents(keepCount: 3, maxAgeMilliseconds: day, now: world.clock.now) == 3)
            #expect(try await store.eventSnapshot(userID: nil).oldest == 8)
            #expect(try await world.replay(nil).first?.seq == 8)
            world.clock.advance(seconds: 3600)
            let next = try await world.rename("g", owner.caller, to: "r8")
            #expect(next == 11, "numbers are never reused")
            #expect(try await store.pruneEvents(keepCount: 1, maxAgeMilliseconds: 1_800_000, now: world.clock.now) == 3)
            #expect(try await world.seqs(nil) == [11])

            // Everything: the head stays, the oldest is past it, and numbering goes on.
            #expect(try await store.pruneEvents(keepCount: 0, maxAgeMilliseconds: day, now: world.clock.now) == 1)
            snapshot = try await store.eventSnapshot(userID: member.id)
            #expect(snapshot.head == 11 && snapshot.oldest == 12 && snapshot.following == [.group("g")])
            #expect(try await world.replay(nil).isEmpty)
            #expect(try await store.pruneEvents(keepCount: 0, maxAgeMilliseconds: 0, now: world.clock.now) == 0)
            let last = try await world.rename("g", owner.caller, to: "r9")
            #expect(last == 12)
            #expect(try await store.eventSnapshot(userID: nil).oldest == 12)
            #expect(try await world.seqs(member.id) == [12])
            #expect(try await world.seqs(visitor.id).isEmpty)
        }
    }

    /// One call drops at most its limit, the oldest first, by count and then by age, with the audience rows of
    /// what it dropped; calls in a row end where one unlimited prune would.
    @Test(arguments: Engine.available)
    func pruningInBatchesDropsTheOldestFirstAndNeverMoreThanTheLimit(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.pseudo("owner")
            let visitor = try await world.pseudo("visitor")
            let store = world.store
            let day: Int64 = 86_400_000
            try await world.group("g", owner.caller)  // 1
            _ = try await world.groups.addMembers(caller: owner.caller, groupID: "g", userIDs: [visitor.id])  // 2
            _ = try await world.groups.removeMembers(caller: owner.caller, groupID: "g", userIDs: [visitor.id])  // 3
            for index in 1...3 { try await world.rename("g", owner.caller, to: "a\(index)") }  // 4...6
            world.clock.advance(seconds: 3600)
            for index in 1...4 { try await world.rename("g", owner.caller, to: "b\(index)") }  // 7...10
            #expect(try await world.seqs(visitor.id) == [2, 3])

            // By count (keep 5 of 10): two, then two, then the last one.
            let now = world.clock.now
            #expect(try await store.pruneEvents(keepCount: 5, maxAgeMilliseconds: day, now: now, limit: 2) == 2)
            #expect(try await world.seqs(nil) == Array(3...10))
            #expect(try await world.seqs(visitor.id) == [3])
            // The rest in batches of two (two, then one).
            #expect(try await store.pruneEvents(keepCount: 5, maxAgeMilliseconds: day, now: now, batchSize: 2) == 3)
            #expect(try await world.seqs(visitor.id).isEmpty)
            #expect(try await store.pruneEvents(keepCount: 5, maxAgeMilliseconds: day, now: now, limit: 2) == 0)
            #expect(try await store.eventSnapshot(userID: nil).oldest == 6)

            // By age: the hour-old event 6, and nothing newer.
            #expect(try await store.pruneEvents(keepCount: 100, maxAgeMilliseconds: 1_800_000, now: now, limit: 3) == 1)
            #expect(try await world.seqs(nil) == Array(7...10))

            // Count and age in one call share the limit; the batched prune ends where a single one would.
            world.clock.advance(seconds: 3600)
            try await world.rename("g", owner.caller, to: "c")  // 11
            let later = world.clock.now
            #expect(try await store.pruneEvents(keepCount: 3, maxAgeMilliseconds: 1_800_000, now: later, limit: 3) == 3)
            #expect(try await world.seqs(nil) == [10, 11])
            #expect(try await store.pruneEvents(keepCount: 3, maxAgeMilliseconds: 1_800_000, now: later) == 1)
            #expect(try await world.seqs(nil) == [11])
            #expect(try await store.pruneEvents(keepCount: 0, maxAgeMilliseconds: day, now: later, limit: .max) == 1)
            #expect(try await store.pruneEvents(keepCount: 0, maxAgeMilliseconds: day, now: later, limit: .min) == 0)
            #expect(try await store.eventSnapshot(userID: nil).oldest == 12)
        }
    }

    // MARK: - Committed events

    /// Arguments no caller should pass get the same answer on every engine, never a crash or a database error:
    /// a negative limit is no limit, an id holding U+0000 names no one, and pruning bounds past the clock's range
    /// are clamped (no count below zero, no age beyond the clock).
    @Test(arguments: Engine.available)
    func outlandishArgumentsGetTheSameAnswerOnEveryEngine(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let owner = try await world.pseudo("owner")
            try await world.group("g", owner.caller)
            try await world.rename("g", owner.caller, to: "again")
            let head = try await world.head()
            #expect(head == 2)
            #expect(try await world.replay(nil, limit: -1).map(\.seq) == [1, 2])
            #expect(try await world.replay(owner.id, limit: -1).map(\.seq) == [1, 2])
            #expect(try await world.replay("a\u{0}b").isEmpty)
            #expect(try await world.seqs(owner.id, installationID: "i\u{0}") == [1, 2])
            #expect(try await world.store.eventSnapshot(userID: "a\u{0}b").following.isEmpty)
            let now = world.clock.now
            #expect(try await world.store.pruneEvents(keepCount: .max, maxAgeMilliseconds: .max, now: now) == 0)
            #expect(try await world.store.pruneEvents(keepCount: .max, maxAgeMilliseconds: .max, now: .min) == 0)
            #expect(try await world.store.pruneEvents(keepCount: .max, maxAgeMilliseconds: .min, now: now) == 0)
            #expect(try await world.seqs(nil) == [1, 2])
            // A count below zero keeps none, as zero does.
            #expect(try await world.store.pruneEvents(keepCount: .min, maxAgeMilliseconds: .max, now: now) == 2)
            let snapshot = try await world.store.eventSnapshot(userID: nil)
            #expect(snapshot.head == 2 && snapshot.oldest == 3)
        }
    }

    @Test(arguments: Engine.available)
    func aSinkHearsEachCommittedEventOnceInOrderAsReplayShowsIt(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            // A later sink replaces an earlier one.
            let replaced = Heard()
            world.store.onCommittedEvents { replaced.hear($0) }
            let heard = Heard()
            world.store.onCommittedEvents { heard.hear($0) }
            let owner = try await world.pseudo("owner")
            let member = try await world.pseudo("member")
            try await world.group("g", owner.caller, members: [member.id])
            _ = try await world.objects.create(caller: owner.caller, scope: .group("g"), bucket: "box", body: ["n": 1], objectID: nil)
            // Writers at once, on groups of their own: commits interleave.
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for writer in 0..<4 {
                    tasks.addTask {
                        try await world.group("w\(writer)", owner.caller)
                        for index in 0..<5 { try await world.rename("w\(writer)", owner.caller, to: "n\(index)") }
                    }
                }
                try await tasks.waitForAll()
            }
            let marker = try await world.rename("g", owner.caller, to: "marker")
            try await heard.wait(for: marker)
            let events = heard.all
            let replayed = try await world.replay(nil)
            #expect(marker == 27 && replayed.count == 27)
            #expect(events.map(\.seq) == Array(1...marker))
            #expect(events.map(\.seq) == replayed.map(\.seq))
            #expect(events.map(\.topic) == replayed.map(\.topic))
            #expect(events.map(\.kind) == replayed.map(\.kind))
            #expect(events.map(\.json) == replayed.map(\.json))
            #expect(replaced.all.isEmpty)
        }
    }

    /// Live delivery decides who receives an event from its routing alone, as the sink hands it on (on
    /// PostgreSQL, read back from the log row).
    @Test(arguments: Engine.available)
    func aCommittedEventCarriesTheRoutingLiveDeliveryNeeds(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let heard = Heard()
            world.store.onCommittedEvents { heard.hear($0) }
            let owner = try await world.user("owner")
            let member = try await world.pseudo("member")
            let quiet = try await world.pseudo("quiet")
            try await world.group("g", owner.caller, members: [member.id])
            _ = try await world.objects.create(caller: owner.caller, scope: .group("g"), bucket: "box", body: ["n": 1], objectID: nil)
            _ = try await world.groups.removeMembers(caller: owner.caller, groupID: "g", userIDs: [member.id])
            _ = try await world.groups.create(
                caller: owner.caller,
                name: "w",
                groupID: "w1",
                type: .work,
                members: [.init(userID: quiet.id)]
            )
            try await world.groups.setReceiveOption(caller: quiet.caller, groupID: "w1", option: .notReceive)
            _ = try await world.groups.sendMessage(caller: owner.caller, groupID: "w1", text: "hi")
            let (thing, token) = try await world.lamp(owner: owner)
            let phone = try await world.things.registerInstallation(
                caller: owner.caller,
                deviceType: "ANDROID",
                registrationID: "a1",
                development: false
            )
            let request = CommandRequest(actions: [["turnPower": ["power": true]]], issuer: .user(owner.id), schema: "SmartLight", schemaVersion: 1)
            let command = try await world.things.send(caller: owner.caller, thingID: thing.thingID, request: request)
            let thingCaller = Caller(
                peer: .init(uid: 1000, gid: 1000, pid: 2),
                isAdmin: false,
                session: try await world.users.resolve(accessToken: token.text)
            )
            _ = try await world.things.putResults(
                caller: thingCaller,
                thingID: thing.thingID,
                commandID: command.commandID,
                results: [["turnPower": ["succeeded": true]]]
            )
            let head = try await world.head()
            try await heard.wait(for: head)
            let events = heard.all
            #expect(events.map(\.seq) == Array(1...head))
            func routing(_ kind: String) throws -> EventRouting { try #require(events.first { $0.kind == kind }).routing }

            let created = try routing("groupCreated")
            #expect(created.joining == [owner.id, member.id] && created.leaving.isEmpty && created.followersSee)
            let kicked = try routing("memberKicked")
            #expect(kicked.leaving == [member.id] && kicked.addressees == [member.id] && kicked.followersSee && kicked.joining.isEmpty)
            let object = try routing("objectCreated")
            #expect(object.followersOf == [.group("g")] && object.addressees == [owner.id] && !object.followersSee && !object.everyone)
            let message = try routing("newMessage")
            #expect(message.excluded == [quiet.id] && message.followersSee)
            let received = try routing("commandReceived")
            #expect(received.addressees == [thing.thingID] && received.installations.isEmpty)
            let result = try routing("commandResult")
            #expect(result.addressees == [owner.id] && result.installations == [phone.installationID])
        }
    }

    @Test(arguments: Engine.available)
    func aFailedWriteNumbersLogsAndHandsOnNothing(engine: Engine) async throws {
        try await Self.withWorld(engine) { world in
            let heard = Heard()
            world.store.onCommittedEvents { heard.hear($0) }
            let owner = try await world.pseudo("owner")
            let stranger = try await world.pseudo("stranger")
            try await world.group("g", owner.caller)
            // A refused call appends nothing.
            await #expect(throws: GuildError.self) { try await world.rename("g", stranger.caller, to: "mine") }
            // Writes that append, then fail, alongside writes that succeed: the failed ones' events, numbers and
            // audience (here: the stranger joining) are all gone.
            let clock = world.clock
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for index in 0..<8 {
                    tasks.addTask {
                        if index.isMultiple(of: 2) {
                            try await world.rename("g", owner.caller, to: "n\(index)")
                        } else {
                            await #expect(throws: Abandon.self) {
                                try await world.store.write { tx in
                                    try tx.append(
                                        GroupEvent(
                                            kind: .memberEnter,
                                            groupID: "g",
                                            actor: stranger.id,
                                            users: [stranger.id],
                                            time: clock.now,
                                            joined: [stranger.id]
                                        )
                                    )
                                    throw Abandon()
                                }
                            }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            let marker = try await world.rename("g", owner.caller, to: "marker")
            #expect(marker == 6)
            try await heard.wait(for: marker)
            let replayed = try await world.replay(nil)
            #expect(replayed.map(\.seq) == Array(1...marker))
            #expect(!replayed.contains { $0.kind == "memberEnter" })
            #expect(heard.all.map(\.seq) == Array(1...marker))
            #expect(heard.all.map(\.json) == replayed.map(\.json))
            #expect(try await world.seqs(stranger.id).isEmpty)
            #expect(try await world.store.eventSnapshot(userID: stranger.id).following.isEmpty)
        }
    }
}
