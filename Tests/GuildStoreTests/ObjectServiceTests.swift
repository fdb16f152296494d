import Foundation
import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// Kii's objects, buckets and ACLs (protocol/objects.md) through the real store, with explicit callers: the
/// seed's ACL behaviours, the defaults table, the two-level rule, live group membership, deletion, optimistic
/// locking and bad input.
struct ObjectServiceTests {
    struct World {
        let temp: TemporaryStore
        let users: UserService
        let groups: GroupService
        let objects: ObjectService

        init() async throws {
            self.temp = try TemporaryStore()
            self.users = try await makeService(self.temp.store)
            self.groups = GroupService(store: self.temp.store, deletionSteps: [ObjectService.removeDeletedGroup])
            self.objects = ObjectService(store: self.temp.store)
        }

        func user(_ name: String) async throws -> (caller: Caller, id: String) {
            let (user, session) = try await self.users.register(identity: .init(username: name), password: "pass", displayName: name, fields: nil)
            return (caller(session, user), user.id)
        }

        var admin: Caller { Caller(peer: .init(uid: 0, gid: 0, pid: 1), isAdmin: true) }
        var anonymous: Caller { Caller(peer: .init(uid: 1000, gid: 1000, pid: 1), isAdmin: false) }

        @discardableResult
        func create(_ caller: Caller, _ scope: ObjectScope, _ bucket: String, _ body: JSONValue, id: String? = nil) async throws -> StoredObject {
            try await self.objects.create(caller: caller, scope: scope, bucket: bucket, body: body, objectID: id)
        }

        func get(_ caller: Caller, _ scope: ObjectScope, _ bucket: String, _ id: String) async throws -> StoredObject {
            try await self.objects.get(caller: caller, scope: scope, bucket: bucket, objectID: id)
        }

        func query(_ caller: Caller, _ scope: ObjectScope, _ bucket: String, _ clause: ObjectClause = .all) async throws -> [StoredObject] {
            var all: [StoredObject] = []
            var key: String?
            repeat {
                let page = try await self.objects.query(
                    caller: caller,
                    scope: scope,
                    bucket: bucket,
                    clause: clause,
                    orderBy: nil,
                    descending: false,
                    limit: 7,
                    paginationKey: key
                )
                all += page.objects
                key = page.nextPaginationKey
            } while key != nil
            return all
        }

        func grant(
            _ caller: Caller,
            _ target: ACLTarget,
            _ entries: [(String, String)],
            revoke: Bool = false,
            atomic: Bool = false,
            ensure: Bool = false
        ) async throws -> ObjectService.ACLChange {
            try await self.objects.changeACL(
                caller: caller,
                target: target,
                entries: entries.map { .init(action: $0.0, subject: $0.1) },
                revoke: revoke,
                atomic: atomic,
                ensure: ensure
            )
        }

        func violations() async throws -> [String] {
            try await self.temp.store.read { try $0.objects.objectInvariantViolations() }
        }
    }

    func code(_ body: () async throws -> Void) async -> GuildError.Code? {
        await guildErrorCode(body)
    }

    // MARK: - The seed's ACL behaviours

    @Test func defaultsAreListedFixedOnesStayAndEachEntryAppliesOnItsOwn() async throws {
        let world = try await World()
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let scope = ObjectScope.user(alice.id)
        let object = try await world.create(alice.caller, scope, "notes", ["text": "hi"])
        let bucket = ACLTarget(scope: scope, bucket: "notes")

        // Defaults listed though none was ever set, the creator's fixed.
        let entries = try await world.objects.acl(caller: alice.caller, target: bucket)
        #expect(Set(entries.map(\.action)) == Set(ACLAction.actions(of: .bucket)))
        #expect(entries.allSatisfy { $0.fixed && $0.subject == .user(alice.id) })
        let objectACL = try await world.objects.acl(caller: alice.caller, target: ACLTarget(scope: scope, bucket: "notes", objectID: object.objectID))
        #expect(Set(objectACL.map(\.action)) == [.readExistingObject, .writeExistingObject])
        // The app scope's ACL is the admin's: its default listed though never written, not fixed.
        #expect(await self.code { _ = try await world.objects.acl(caller: alice.caller, target: ACLTarget(scope: .app)) } == .permissionDenied)
        #expect(try await world.objects.acl(caller: world.admin, target: ACLTarget(scope: .app)) == [ACLEntry(.createNewBucket, .anyAuthenticated)])
        #expect(
            try await world.objects.acl(caller: alice.caller, target: ACLTarget(scope: scope)) == [
                ACLEntry(.createNewBucket, .user(alice.id), fixed: true)
            ]
        )

        // Fixed entries cannot be revoked.
        let fixed = try await world.grant(alice.caller, bucket, [("READ_OBJECTS_IN_BUCKET", "UserID:\(alice.id)")], revoke: true)
        #expect(fixed.failed.map(\.error.code) == [.aclEntryFixed])

        // A partial failure: the duplicate fails, the others apply.
        _ = try await world.grant(alice.caller, bucket, [("QUERY_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")])
        let partial = try await world.grant(
            alice.caller,
            bucket,
            [
                ("QUERY_OBJECTS_IN_BUCKET", "UserID:\(bob.id)"), ("READ_OBJECTS_IN_BUCKET", "UserID:\(bob.id)"),
                ("CREATE_OBJECTS_IN_BUCKET", "UserID:nobody"),
            ]
        )
        #expect(partial.succeeded.map(\.action) == [.readObjectsInBucket])
        #expect(partial.failed.map(\.error.code) == [.aclAlreadyExists, .userNotFound])

        // Revoke by entry; revoking it again: ACL_NOT_FOUND; with ensure, succeeded.
        let revoked = try await world.grant(alice.caller, bucket, [("READ_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")], revoke: true)
        #expect(revoked.succeeded.count == 1 && revoked.failed.isEmpty)
        let again = try await world.grant(alice.caller, bucket, [("READ_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")], revoke: true)
        #expect(again.failed.map(\.error.code) == [.aclNotFound])
        let ensured = try await world.grant(alice.caller, bucket, [("READ_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")], revoke: true, ensure: true)
        #expect(ensured.succeeded.count == 1 && ensured.failed.isEmpty)

        // ensure makes a grant idempotent: start-up code can run every time.
        for _ in 0..<2 {
            let run = try await world.grant(alice.caller, bucket, [("QUERY_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")], ensure: true)
            #expect(run.succeeded.count == 1 && run.failed.isEmpty)
        }

        // atomic: one failure, nothing applied.
        let before = try await world.objects.acl(caller: alice.caller, target: bucket)
        let atomic = await self.code {
            _ = try await world.grant(
                alice.caller,
                bucket,
                [("DROP_BUCKET_WITH_ALL_CONTENT", "UserID:\(bob.id)"), ("QUERY_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")],
                atomic: true
            )
        }
        #expect(atomic == .aclAlreadyExists)
        #expect(try await world.objects.acl(caller: alice.caller, target: bucket) == before)

        // Only the scope's administrator (or an admin) reads or changes the bucket's ACL.
        #expect(await self.code { _ = try await world.objects.acl(caller: bob.caller, target: bucket) } == .permissionDenied)
        #expect(try await world.violations() == [])
    }

    @Test func aliceAndBobShareAUserBucket() async throws {
        let world = try await World()
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let scope = ObjectScope.user(alice.id)
        let bucket = ACLTarget(scope: scope, bucket: "shared")
        let alices = try await world.create(alice.caller, scope, "shared", ["from": "alice"])
        // Bob may not write or see the bucket until Alice lets him.
        #expect(await self.code { try await world.create(bob.caller, scope, "shared", ["from": "bob"]) } == .permissionDenied)
        #expect(await self.code { _ = try await world.query(bob.caller, scope, "shared") } == .bucketNotFound)
        _ = try await world.grant(
            alice.caller,
            bucket,
            [("CREATE_OBJECTS_IN_BUCKET", "UserID:\(bob.id)"), ("QUERY_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")]
        )
        let bobs = try await world.create(bob.caller, scope, "shared", ["from": "bob"])
        // Both read and write Bob's object (he created it; she owns the scope).
        for caller in [alice.caller, bob.caller] {
            #expect(try await world.get(caller, scope, "shared", bobs.objectID).fields["from"] == "bob")
            _ = try await world.objects.update(
                caller: caller,
                scope: scope,
                bucket: "shared",
                objectID: bobs.objectID,
                change: .patch(["seen": true]),
                ifVersion: nil
            )
        }
        // With CREATE and QUERY only, Bob's query returns his own objects, and Alice's stays hidden.
        #expect(try await world.query(bob.caller, scope, "shared").map(\.objectID) == [bobs.objectID])
        #expect(await self.code { _ = try await world.get(bob.caller, scope, "shared", alices.objectID) } == .objectNotFound)
        // READ_OBJECTS_IN_BUCKET exposes Alice's objects without touching their ACLs.
        _ = try await world.grant(alice.caller, bucket, [("READ_OBJECTS_IN_BUCKET", "UserID:\(bob.id)")])
        #expect(Set(try await world.query(bob.caller, scope, "shared").map(\.objectID)) == [alices.objectID, bobs.objectID])
        #expect(try await world.get(bob.caller, scope, "shared", alices.objectID).fields["from"] == "alice")
        // Reading is not writing.
        #expect(
            await self.code {
                _ = try await world.objects.update(
                    caller: bob.caller,
                    scope: scope,
                    bucket: "shared",
                    objectID: alices.objectID,
                    change: .patch(["x": 1]),
                    ifVersion: nil
                )
            } == .permissionDenied
        )
    }

    @Test func appScopeDefaultsAnonymousAndAdminOnlyBucketACLs() async throws {
        let world = try await World()
        let carol = try await world.user("carol")
        let object = try await world.create(carol.caller, .app, "public", ["n": 1])
        // ANONYMOUS_USER: readable without a session; ANY_AUTHENTICATED_USER: writable with one.
        #expect(try await world.get(world.anonymous, .app, "public", object.objectID).fields["n"] == 1)
        #expect(await self.code { try await world.create(world.anonymous, .app, "public", ["n": 2]) } == .unauthorized)
        // A user token may not change an app bucket's ACL; an admin may, and the anonymous default goes.
        let target = ACLTarget(scope: .app, bucket: "public")
        #expect(
            await self.code { _ = try await world.grant(carol.caller, target, [("READ_OBJECTS_IN_BUCKET", "UserID:ANONYMOUS_USER")], revoke: true) }
                == .permissionDenied
        )
        let revoked = try await world.grant(
            world.admin,
            target,
            [("READ_OBJECTS_IN_BUCKET", "UserID:ANONYMOUS_USER"), ("QUERY_OBJECTS_IN_BUCKET", "UserID:ANONYMOUS_USER")],
            revoke: true
        )
        #expect(revoked.failed.isEmpty)
        // The object's own entry still lets anyone read it (READ_EXISTING_OBJECT for ANONYMOUS_USER).
        #expect(try await world.get(world.anonymous, .app, "public", object.objectID).objectID == object.objectID)
        _ = try await world.grant(
            carol.caller,
            ACLTarget(scope: .app, bucket: "public", objectID: object.objectID),
            [("READ_EXISTING_OBJECT", "UserID:ANONYMOUS_USER")],
            revoke: true
        )
        #expect(await self.code { _ = try await world.get(world.anonymous, .app, "public", object.objectID) } == .objectNotFound)
        // The scope's CREATE_NEW_BUCKET default is any authenticated user; an admin may take it away.
        _ = try await world.grant(world.admin, ACLTarget(scope: .app), [("CREATE_NEW_BUCKET", "UserID:ANY_AUTHENTICATED_USER")], revoke: true)
        #expect(await self.code { try await world.create(carol.caller, .app, "other", ["n": 1]) } == .permissionDenied)
        #expect(try await world.create(carol.caller, .app, "public", ["n": 3]).version == 1)
    }

    // MARK: - Groups: live membership, owner, deletion

    @Test func groupMembershipChangesTakeEffectOnTheNextCheck() async throws {
        let world = try await World()
        let owner = try await world.user("owner")
        let member = try await world.user("member")
        let outsider = try await world.user("outsider")
        let (group, _) = try await world.groups.create(
            caller: owner.caller,
            name: "G",
            groupID: "g1",
            type: .basic,
            members: [.init(userID: member.id)]
        )
        let scope = ObjectScope.group(group.id)
        let object = try await world.create(member.caller, scope, "box", ["k": "v"])
        #expect(try await world.get(owner.caller, scope, "box", object.objectID).fields["k"] == "v")
        // A non-member can read the group but not its buckets.
        #expect(await self.code { _ = try await world.get(outsider.caller, scope, "box", object.objectID) } == .objectNotFound)
        #expect(await self.code { try await world.create(outsider.caller, scope, "box", ["k": 1]) } == .permissionDenied)
        // Added: at once.
        _ = try await world.groups.addMembers(caller: owner.caller, groupID: group.id, userIDs: [outsider.id])
        #expect(try await world.get(outsider.caller, scope, "box", object.objectID).objectID == object.objectID)
        // Removed: at once.
        _ = try await world.groups.removeMembers(caller: owner.caller, groupID: group.id, userIDs: [outsider.id])
        #expect(await self.code { _ = try await world.get(outsider.caller, scope, "box", object.objectID) } == .objectNotFound)
        // Only the owner (or the bucket's creator) drops a group bucket; a new owner may at once.
        try await world.create(owner.caller, scope, "owners", ["k": 1])
        #expect(await self.code { try await world.objects.deleteBucket(caller: member.caller, scope: scope, bucket: "owners") } == .permissionDenied)
        _ = try await world.groups.changeOwner(caller: owner.caller, groupID: group.id, userID: member.id)
        try await world.objects.deleteBucket(caller: member.caller, scope: scope, bucket: "owners")
        #expect(try await world.objects.buckets(caller: member.caller, scope: scope).map(\.name) == ["box"])
        // Deleting the group deletes its buckets and the entries naming it.
        _ = try await world.grant(world.admin, ACLTarget(scope: .app, bucket: "box2"), [("READ_OBJECTS_IN_BUCKET", "GroupID:\(group.id)")])
        try await world.groups.delete(caller: member.caller, groupID: group.id)
        let left = try await world.temp.store.read { tx in
            (
                try tx.objects.buckets(scope: scope).count,
                try tx.objects.aclEntries(
                    scope: .app,
                    bucket: tx.objects.bucket(scope: .app, name: "box2")!.rowID,
                    objectID: "",
                    action: .readObjectsInBucket
                )!
            )
        }
        #expect(left.0 == 0)
        #expect(!left.1.contains { $0.subject == .group(group.id) })
        #expect(try await world.violations() == [])
    }

    @Test func deletingAUserDeletesTheirScopeAndTheEntriesNamingThem() async throws {
        let world = try await World()
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        try await world.create(alice.caller, .user(alice.id), "mine", ["a": 1])
        let shared = try await world.create(bob.caller, .app, "stuff", ["b": 1])
        _ = try await world.grant(
            bob.caller,
            ACLTarget(scope: .app, bucket: "stuff", objectID: shared.objectID),
            [("READ_EXISTING_OBJECT", "UserID:\(alice.id)")]
        )
        _ = try await world.users.delete(caller: alice.caller, userID: nil)
        let entries = try await world.objects.acl(caller: bob.caller, target: ACLTarget(scope: .app, bucket: "stuff", objectID: shared.objectID))
        #expect(!entries.contains { $0.subject == .user(alice.id) })
        let buckets = try await world.temp.store.read { try $0.objects.buckets(scope: .user(alice.id)).count }
        #expect(buckets == 0)
        #expect(try await world.violations() == [])
    }

    // MARK: - Versions

    @Test func concurrentIfVersionWritersExactlyOneWins() async throws {
        let world = try await World()
        let alice = try await world.user("alice")
        let object = try await world.create(alice.caller, .app, "race", ["n": 0])
        let outcomes = await withTaskGroup(of: GuildError.Code?.self) { group in
            for writer in 0..<16 {
                group.addTask {
                    await self.code {
                        _ = try await world.objects.update(
                            caller: alice.caller,
                            scope: .app,
                            bucket: "race",
                            objectID: object.objectID,
                            change: .replace(["n": .int(Int64(writer))]),
                            ifVersion: 1
                        )
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.filter { $0 == .objectVersionIsStale }.count == 15)
        let final = try await world.get(alice.caller, .app, "race", object.objectID)
        #expect(final.version == 2)
        #expect(
            await self.code {
                try await world.objects.delete(caller: alice.caller, scope: .app, bucket: "race", objectID: object.objectID, ifVersion: 1)
            } == .objectVersionIsStale
        )
        try await world.objects.delete(caller: alice.caller, scope: .app, bucket: "race", objectID: object.objectID, ifVersion: 2)
    }

    // MARK: - Bad input

    @Test func badInputIsRefusedAndNothingIsWritten() async throws {
        let world = try await World()
        let alice = try await world.user("alice")
        var deep: JSONValue = 1
        for _ in 0..<40 { deep = ["d": deep] }
        let bad: [(JSONValue, String, GuildError.Code)] = [
            ([1, 2], "ok", .invalidInput),
            ("text", "ok", .invalidInput),
            (["big": .string(String(repeating: "x", count: 70_000))], "ok", .objectTooLarge),
            (deep, "ok", .invalidInput),
            (["a": 1], "a", .invalidInput),
            (["a": 1], "_hidden", .invalidInput),
            (["a": 1], "users", .invalidInput),
            (["a": 1], "no spaces", .invalidInput),
            (["a": 1], String(repeating: "b", count: 65), .invalidInput),
        ]
        for (body, bucket, expected) in bad {
            #expect(await self.code { try await world.create(alice.caller, .app, bucket, body) } == expected, "\(bucket)")
        }
        #expect(await self.code { try await world.create(alice.caller, .app, "ok", ["a": 1], id: "x") } == .invalidInput)
        #expect(await self.code { try await world.create(alice.caller, .group("nope"), "ok", ["a": 1]) } == .groupNotFound)
        #expect(try await world.objects.buckets(caller: world.admin, scope: .app).isEmpty)
        try await world.create(alice.caller, .app, "ok", ["a": 1])
        let target = ACLTarget(scope: .app, bucket: "ok")
        #expect(await self.code { _ = try await world.grant(world.admin, target, [("FLY", "UserID:\(alice.id)")]) } == .invalidInput)
        #expect(await self.code { _ = try await world.grant(world.admin, target, [("READ_EXISTING_OBJECT", "UserID:\(alice.id)")]) } == .invalidInput)
        for subject in ["alice", "Nobody:1", "UserID:", "GroupID:\u{1}"] {
            #expect(
                await self.code { _ = try await world.grant(world.admin, target, [("READ_OBJECTS_IN_BUCKET", subject)]) } == .invalidInput,
                "\(subject)"
            )
        }
        // Reserved fields sent by a client are not stored.
        let object = try await world.create(alice.caller, .app, "ok", ["_owner": "mallory", "_version": "99", "x": 1])
        #expect(object.owner == alice.id && object.version == 1 && object.fields == ["x": 1])
        // A patch that would grow the object past the limit writes nothing.
        let half: JSONValue = .string(String(repeating: "y", count: 40_000))
        _ = try await world.objects.update(
            caller: alice.caller,
            scope: .app,
            bucket: "ok",
            objectID: object.objectID,
            change: .patch(["a": half]),
            ifVersion: nil
        )
        #expect(
            await self.code {
                _ = try await world.objects.update(
                    caller: alice.caller,
                    scope: .app,
                    bucket: "ok",
                    objectID: object.objectID,
                    change: .patch(["b": half]),
                    ifVersion: nil
                )
            } == .objectTooLarge
        )
        #expect(try await world.get(alice.caller, .app, "ok", object.objectID).version == 2)
    }
}
