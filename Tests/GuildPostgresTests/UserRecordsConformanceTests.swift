import Foundation
import GuildCore
import GuildPostgres
import GuildStore
import GuildTestSupport
import PostgresNIO
import Testing

/// A storage engine the users area's records run on.
enum Engine: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// SQLite always; PostgreSQL when `scripts/test` started a server for the tests.
    static var available: [Engine] { TestPostgres.isConfigured ? [.sqlite, .postgres] : [.sqlite] }

    var testDescription: String { self.rawValue }

    /// Runs `body` with a fresh, empty store of this engine, schema migrated; removes the store afterwards.
    func withStore<T: Sendable>(_ body: (any UserRecordsStore) async throws -> T) async throws -> T {
        try await self.withFreshStore(
            sqlite: { SQLiteUserRecordsStore(store: $0) as any UserRecordsStore },
            postgres: { PostgresUserRecordsStore(writer: $0, reader: $1) },
            body
        )
    }
}

/// A store seen through its users area's records: each `write` one write transaction, each `read` a read.
protocol UserRecordsStore: Sendable {
    func write<T: Sendable>(_ body: @escaping @Sendable (any UserRecords) throws -> T) async throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (any UserRecords) throws -> T) async throws -> T
}

struct SQLiteUserRecordsStore: UserRecordsStore {
    let store: SQLiteStore

    func write<T: Sendable>(_ body: @escaping @Sendable (any UserRecords) throws -> T) async throws -> T {
        try await self.store.write { transaction in try body(transaction.users) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any UserRecords) throws -> T) async throws -> T {
        try await self.store.read { transaction in try body(transaction.users) }
    }
}

struct PostgresUserRecordsStore: UserRecordsStore {
    let writer: PostgresWriter
    let reader: BlockingConnection

    func write<T: Sendable>(_ body: @escaping @Sendable (any UserRecords) throws -> T) async throws -> T {
        try await self.writer.write { context in try body(PostgresTransaction(context).users) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any UserRecords) throws -> T) async throws -> T {
        let reader = self.reader
        return try await TestPostgres.blocking { try body(PostgresTransaction(reading: reader).users) }
    }
}

/// The users area's records behave the same on every engine: the same answers, and the same errors with the
/// same codes, messages and fields.
@Suite(.timeLimit(.minutes(10)))
struct UserRecordsConformanceTests {
    // MARK: - Fixtures

    static func session(expiresAt: Int64? = nil, refresh: Bool = true) -> IssuedSession {
        IssuedSession(
            accessToken: .generate(),
            refreshToken: refresh ? .generate() : nil,
            expiresAt: expiresAt,
            family: UUID().uuidString
        )
    }

    static func user(
        _ id: String,
        username: String? = nil,
        email: String? = nil,
        phone: String? = nil,
        pseudo: Bool = false,
        at time: Int64 = 10
    ) -> User {
        User(
            id: id,
            username: username,
            email: email,
            phone: phone,
            isPseudo: pseudo,
            createdAt: time,
            modifiedAt: time
        )
    }

    /// Sets the custom fields of `user` from their JSON text (this target does not import GuildJSON).
    static func set(fields json: String, of user: inout User) throws {
        user.fields = try JSONDecoder().decode(type(of: user.fields), from: Data(json.utf8))
    }

    /// Inserts `user` with a password hash (none when pseudo) and a fresh session; returns the session.
    @discardableResult
    static func insert(
        _ user: User,
        into store: any UserRecordsStore,
        hash: String = "hash"
    ) async throws
        -> IssuedSession
    {
        let session = Self.session(refresh: !user.isPseudo)
        try await store.write { try $0.insertUser(user, passwordHash: user.isPseudo ? nil : hash, session: session) }
        return session
    }

    /// Inserts alice (`u1`: every part of an identity, a display name and a field) and bob (`u2`, whose email and
    /// phone a change to alice's may clash with); returns alice.
    static func insertAliceAndBob(into store: any UserRecordsStore) async throws -> User {
        var alice = Self.user("u1", username: "alice", email: "alice@example.com", phone: "+1000")
        alice.displayName = "Alice"
        try Self.set(fields: #"{"a": 1}"#, of: &alice)
        try await Self.insert(alice, into: store)
        try await Self.insert(Self.user("u2", email: "bob@example.com", phone: "+2000"), into: store)
        return alice
    }

    static func resolve(
        _ token: Token,
        in store: any UserRecordsStore,
        now: Int64 = 100
    ) async throws
        -> ResolvedSession?
    {
        try await store.read { try $0.resolveAccessToken(hash: token.hash, now: now) }
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

    // MARK: - insertUser, credentials, user(id:)

    @Test(arguments: Engine.available)
    func anInsertedUserIsFoundByEachPartOfItsIdentityIgnoringASCIICase(engine: Engine) async throws {
        try await engine.withStore { store in
            var alice = Self.user("u1", username: "Alice.B", email: "Alice@Example.com", phone: "+15550001")
            alice.displayName = "A\u{0}lice / é 😀"
            try Self.set(fields: #"{"k": "v/w", "n": 1, "list": [true, "x\u0000y"], "nested": {"a": 2.5}}"#, of: &alice)
            try await Self.insert(alice, into: store, hash: "hash-1")
            #expect(try await store.read { try $0.user(id: "u1") } == alice)
            #expect(try await store.read { try $0.user(id: "u2") } == nil)
            let identities = [
                LoginIdentity(username: "alice.b"), LoginIdentity(username: "ALICE.B"),
                LoginIdentity(email: "aLiCe@example.COM"), LoginIdentity(phone: "+15550001"),
            ]
            for identity in identities {
                let found = try await store.read { try $0.credentials(for: identity) }
                #expect(found?.user == alice, "\(identity)")
                #expect(found?.passwordHash == "hash-1", "\(identity)")
            }
            // The login name decides when given; phones compare exactly; no part finds nothing.
            let misses = [
                LoginIdentity(username: "alice.c", email: "alice@example.com"),
                LoginIdentity(email: "alice@example.co"),
                LoginIdentity(phone: "+1555000"), LoginIdentity(),
            ]
            for identity in misses {
                #expect(try await store.read { try $0.credentials(for: identity) } == nil, "\(identity)")
            }
        }
    }

    /// As SQLite's COLLATE NOCASE: only ASCII letters fold; `É` and `é` are different addresses.
    @Test(arguments: Engine.available)
    func onlyASCIILettersFoldCase(engine: Engine) async throws {
        try await engine.withStore { store in
            try await Self.insert(Self.user("u1", email: "É@example.com"), into: store)
            try await Self.insert(Self.user("u2", email: "é@example.com"), into: store)
            let upper = try await store.read { try $0.credentials(for: LoginIdentity(email: "É@EXAMPLE.com")) }
            let lower = try await store.read { try $0.credentials(for: LoginIdentity(email: "é@example.COM")) }
            #expect(upper?.user.id == "u1")
            #expect(lower?.user.id == "u2")
        }
    }

    @Test(arguments: Engine.available)
    func aTakenUsernameEmailOrPhoneIsUserAlreadyExists(engine: Engine) async throws {
        try await engine.withStore { store in
            let alice = Self.user("u1", username: "alice", email: "a@example.com", phone: "+1555")
            try await Self.insert(alice, into: store)
            let taken: [(User, String, String?)] = [
                (Self.user("u2", username: "ALICE"), "a user with this username already exists", "username"),
                (Self.user("u3", email: "A@EXAMPLE.COM"), "a user with this email already exists", "email"),
                (Self.user("u4", phone: "+1555"), "a user with this phone already exists", "phone"),
            ]
            for (user, message, field) in taken {
                let session = Self.session()
                await Self.expectError(.userAlreadyExists, message, field: field) {
                    try await store.write { try $0.insertUser(user, passwordHash: "h", session: session) }
                }
                // Nothing of the refused insert stays: no row, no token.
                #expect(try await Self.resolve(session.accessToken, in: store) == nil)
            }
            // A taken id is refused too, though not as userAlreadyExists: ids are generated, never chosen.
            let sameID = Self.user("u1", username: "other")
            await #expect(throws: (any Error).self) {
                try await store.write { try $0.insertUser(sameID, passwordHash: "h", session: Self.session()) }
            }
            #expect(try await store.read { try $0.credentials(for: LoginIdentity(username: "other")) } == nil)
            for id in ["u2", "u3", "u4"] { #expect(try await store.read { try $0.user(id: id) } == nil) }
            #expect(try await store.read { try $0.user(id: "u1") }?.username == "alice")
            // The store goes on writing after a refusal.
            try await Self.insert(Self.user("u5", username: "alice2"), into: store)
            #expect(try await store.read { try $0.user(id: "u5") } != nil)
        }
    }

    // MARK: - Sessions

    @Test(arguments: Engine.available)
    func aSessionForAMissingUserIsUserNotFound(engine: Engine) async throws {
        try await engine.withStore { store in
            try await Self.insert(Self.user("u1", username: "alice"), into: store)
            let second = Self.session()
            try await store.write { try $0.insertSession(second, userID: "u1", now: 20) }
            #expect(try await Self.resolve(second.accessToken, in: store)?.user.id == "u1")
            #expect(try await store.write { try $0.deleteUserRecord(id: "u1") })
            let third = Self.session()
            await Self.expectError(.userNotFound, "no user with id u1", field: "userID") {
                try await store.write { try $0.insertSession(third, userID: "u1", now: 30) }
            }
            await Self.expectError(.userNotFound, "no user with id nobody", field: "userID") {
                try await store.write { try $0.insertSession(third, userID: "nobody", now: 30) }
            }
            #expect(try await Self.resolve(third.accessToken, in: store) == nil)
        }
    }

    @Test(arguments: Engine.available)
    func aRefreshTokenIsSingleUseAndRevokesItsSession(engine: Engine) async throws {
        try await engine.withStore { store in
            let alice = Self.user("u1", username: "alice")
            let first = try await Self.insert(alice, into: store)
            let refresh = try #require(first.refreshToken)
            let second = Self.session()
            let rotated = try await store.write { try $0.rotateRefreshToken(hash: refresh.hash, to: second, now: 20) }
            #expect(rotated == alice)
            #expect(try await Self.resolve(first.accessToken, in: store) == nil, "the old access token is revoked")
            #expect(try await Self.resolve(second.accessToken, in: store)?.user == alice)
            let message = "the refresh token is unknown, already used or revoked"
            let third = Self.session()
            // The used token, an access token, and an unknown one are all refused, and store nothing.
            for hash in [refresh.hash, second.accessToken.hash, Token.generate().hash] {
                await Self.expectError(.invalidRefreshToken, message) {
                    _ = try await store.write { try $0.rotateRefreshToken(hash: hash, to: third, now: 30) }
                }
            }
            #expect(try await Self.resolve(third.accessToken, in: store) == nil)
            #expect(try await Self.resolve(second.accessToken, in: store)?.user == alice, "a refusal revokes nothing")
            // The new refresh token works, once.
            let next = try #require(second.refreshToken)
            #expect(try await store.write { try $0.rotateRefreshToken(hash: next.hash, to: third, now: 40) } == alice)
            #expect(try await Self.resolve(second.accessToken, in: store) == nil)
            #expect(try await Self.resolve(third.accessToken, in: store)?.user == alice)
        }
    }

    @Test(arguments: Engine.available)
    func anAccessTokenResolvesUntilItExpires(engine: Engine) async throws {
        try await engine.withStore { store in
            let alice = Self.user("u1", username: "alice")
            try await Self.insert(alice, into: store)
            let expiring = Self.session(expiresAt: 1_000)
            let lasting = Self.session(expiresAt: nil)
            try await store.write { transaction in
                try transaction.insertSession(expiring, userID: "u1", now: 20)
                try transaction.insertSession(lasting, userID: "u1", now: 20)
            }
            let live = try await Self.resolve(expiring.accessToken, in: store, now: 999)
            #expect(live == ResolvedSession(user: alice, tokenHash: expiring.accessToken.hash, expiresAt: 1_000))
            #expect(live?.isThing == false)
            #expect(try await Self.resolve(expiring.accessToken, in: store, now: 1_000) == nil)
            #expect(try await Self.resolve(expiring.accessToken, in: store, now: 5_000) == nil)
            let forever = try await Self.resolve(lasting.accessToken, in: store, now: .max)
            #expect(forever == ResolvedSession(user: alice, tokenHash: lasting.accessToken.hash, expiresAt: nil))
            // A refresh token is not an access token.
            let refresh = try #require(expiring.refreshToken)
            #expect(try await Self.resolve(refresh, in: store, now: 0) == nil)
        }
    }

    @Test(arguments: Engine.available)
    func revokingASessionRevokesItsTokensOnly(engine: Engine) async throws {
        try await engine.withStore { store in
            let first = try await Self.insert(Self.user("u1", username: "alice"), into: store)
            let second = Self.session()
            try await store.write { try $0.insertSession(second, userID: "u1", now: 20) }
            try await store.write { try $0.revokeSession(accessTokenHash: first.accessToken.hash) }
            #expect(try await Self.resolve(first.accessToken, in: store) == nil)
            #expect(try await Self.resolve(second.accessToken, in: store)?.user.id == "u1")
            let refresh = try #require(first.refreshToken)
            let third = Self.session()
            await Self.expectError(.invalidRefreshToken, "the refresh token is unknown, already used or revoked") {
                _ = try await store.write { try $0.rotateRefreshToken(hash: refresh.hash, to: third, now: 30) }
            }
            // An unknown token revokes nothing, and is no error.
            try await store.write { try $0.revokeSession(accessTokenHash: Token.generate().hash) }
            #expect(try await Self.resolve(second.accessToken, in: store)?.user.id == "u1")
        }
    }

    // MARK: - Identity and password

    @Test(arguments: Engine.available)
    func aPseudoUserGetsAnIdentityOnce(engine: Engine) async throws {
        try await engine.withStore { store in
            var pseudo = Self.user("p1", pseudo: true)
            pseudo.displayName = "guest"
            try await Self.insert(pseudo, into: store)
            try await Self.insert(Self.user("u1", username: "taken", email: "taken@example.com"), into: store)
            #expect(try await store.read { try $0.passwordHash(userID: "p1") } == nil)

            let takenName = LoginIdentity(username: "TAKEN")
            await Self.expectError(.userAlreadyExists, "a user with this username already exists", field: "username") {
                _ = try await store.write {
                    try $0.setIdentity(userID: "p1", identity: takenName, passwordHash: "h", now: 40)
                }
            }
            #expect(try await store.read { try $0.user(id: "p1") } == pseudo, "a refused identity changes nothing")

            let identity = LoginIdentity(username: "Bob", email: "bob@example.com", phone: "+1999")
            let updated = try await store.write {
                try $0.setIdentity(userID: "p1", identity: identity, passwordHash: "bob-hash", now: 50)
            }
            var expected = pseudo
            expected.username = "Bob"
            expected.email = "bob@example.com"
            expected.phone = "+1999"
            expected.isPseudo = false
            expected.modifiedAt = 50
            #expect(updated)
            #expect(try await store.read { try $0.user(id: "p1") } == expected)
            let found = try await store.read { try $0.credentials(for: LoginIdentity(username: "bob")) }
            #expect(found?.user == expected)
            #expect(found?.passwordHash == "bob-hash")

            // Only a pseudo user gets an identity: nothing changes for a user who has one or for no user.
            let again = LoginIdentity(username: "bob2")
            for id in ["p1", "u1", "nobody"] {
                let before = try await store.read { try $0.user(id: id) }
                #expect(try await store.write { try $0.setIdentity(userID: id, identity: again, passwordHash: "h", now: 60) } == false)
                #expect(try await store.read { try $0.user(id: id) } == before)
            }
        }
    }

    @Test(arguments: Engine.available)
    func passwordHashesAreReadAndReplacedRevokingEveryToken(engine: Engine) async throws {
        try await engine.withStore { store in
            let first = try await Self.insert(Self.user("u1", username: "alice"), into: store, hash: "old")
            let other = try await Self.insert(Self.user("u2", username: "bob"), into: store, hash: "bob")
            let second = Self.session()
            try await store.write { try $0.insertSession(second, userID: "u1", now: 20) }
            #expect(try await store.read { try $0.passwordHash(userID: "u1") } == "old")

            let third = Self.session()
            try await store.write { try $0.replacePassword(userID: "u1", passwordHash: "new", session: third, now: 77) }
            #expect(try await store.read { try $0.passwordHash(userID: "u1") } == "new")
            #expect(try await store.read { try $0.user(id: "u1") }?.modifiedAt == 77)
            let credentials = try await store.read { try $0.credentials(for: LoginIdentity(username: "alice")) }
            #expect(credentials?.passwordHash == "new")
            #expect(try await Self.resolve(first.accessToken, in: store) == nil)
            #expect(try await Self.resolve(second.accessToken, in: store) == nil)
            #expect(try await Self.resolve(third.accessToken, in: store)?.user.id == "u1")
            #expect(try await Self.resolve(other.accessToken, in: store)?.user.id == "u2", "other users keep theirs")
            let refresh = try #require(second.refreshToken)
            await Self.expectError(.invalidRefreshToken, "the refresh token is unknown, already used or revoked") {
                _ = try await store.write { try $0.rotateRefreshToken(hash: refresh.hash, to: Self.session(), now: 80) }
            }

            let fourth = Self.session()
            await Self.expectError(.userNotFound, "no user with id nobody", field: "userID") {
                try await store.write {
                    try $0.replacePassword(userID: "nobody", passwordHash: "x", session: fourth, now: 80)
                }
            }
            await Self.expectError(.userNotFound, "no user with id nobody", field: "userID") {
                _ = try await store.read { try $0.passwordHash(userID: "nobody") }
            }
            #expect(try await Self.resolve(fourth.accessToken, in: store) == nil)
        }
    }

    // MARK: - saveUser and deleteUserRecord

    @Test(arguments: Engine.available)
    func savingAUserWritesWhatChanged(engine: Engine) async throws {
        try await engine.withStore { store in
            let alice = try await Self.insertAliceAndBob(into: store)

            var changed = alice
            changed.displayName = "Alice\u{0}Liddell"
            changed.email = nil
            try Self.set(fields: #"{"b": {"c": "d/e"}, "n": null}"#, of: &changed)
            changed.modifiedAt = 20
            try await store.write { [changed, alice] in try $0.saveUser(changed, old: alice) }
            #expect(try await store.read { try $0.user(id: "u1") } == changed)
            #expect(try await store.read { try $0.credentials(for: LoginIdentity(email: "alice@example.com")) } == nil)

            // Only what differs from `old` is written: the phone another writer changed meanwhile stays.
            var phoned = changed
            phoned.phone = "+1001"
            phoned.modifiedAt = 30
            try await store.write { [phoned, changed] in try $0.saveUser(phoned, old: changed) }
            var stale = changed
            stale.fields = [:]
            stale.modifiedAt = 40
            try await store.write { [stale, changed] in try $0.saveUser(stale, old: changed) }
            var expected = phoned
            expected.fields = [:]
            expected.modifiedAt = 40
            #expect(try await store.read { try $0.user(id: "u1") } == expected)

            var clash = expected
            clash.email = "BOB@example.com"
            await Self.expectError(.userAlreadyExists, "a user with this email already exists", field: "email") {
                try await store.write { [clash, expected] in try $0.saveUser(clash, old: expected) }
            }
            clash = expected
            clash.phone = "+2000"
            await Self.expectError(.userAlreadyExists, "a user with this phone already exists", field: "phone") {
                try await store.write { [clash, expected] in try $0.saveUser(clash, old: expected) }
            }
            #expect(try await store.read { try $0.user(id: "u1") } == expected)
        }
    }

    /// A change to the profile alone may reach the database after `saveUser` returns (PostgreSQL sends it without
    /// waiting): the same write still reads it back, and a write that fails after it leaves nothing of it.
    @Test(arguments: Engine.available)
    func aProfileChangeIsSeenByItsWriteAndGoneWithAWriteThatFails(engine: Engine) async throws {
        try await engine.withStore { store in
            var alice = Self.user("u1", username: "alice", email: "alice@example.com")
            alice.displayName = "Alice"
            try await Self.insert(alice, into: store)

            var renamed = alice
            renamed.displayName = "Alice Liddell"
            renamed.modifiedAt = 20
            let seen = try await store.write { [renamed, alice] in
                try $0.saveUser(renamed, old: alice)
                return try $0.user(id: "u1")
            }
            #expect(seen == renamed)
            #expect(try await store.read { try $0.user(id: "u1") } == renamed)

            var lost = renamed
            lost.displayName = "Mallory"
            try Self.set(fields: #"{"x": 1}"#, of: &lost)
            lost.modifiedAt = 30
            await Self.expectError(.userNotFound, "a later step of the write failed") {
                try await store.write { [lost, renamed] in
                    try $0.saveUser(lost, old: renamed)
                    throw GuildError(.userNotFound, "a later step of the write failed")
                }
            }
            #expect(try await store.read { try $0.user(id: "u1") } == renamed)
        }
    }

    /// `setProfile` writes the columns it is given and the modification time, leaves the rest as stored (a phone
    /// another writer changed stays), answers the row as stored, and fails as `saveUser` does.
    @Test(arguments: Engine.available)
    func settingAProfileWritesTheGivenColumnsAndAnswersTheStoredUser(engine: Engine) async throws {
        try await engine.withStore { store in
            let alice = try await Self.insertAliceAndBob(into: store)

            // Another writer's change to the phone, which the next call does not name.
            var phoned = alice
            phoned.phone = "+1001"
            phoned.modifiedAt = 15
            try await store.write { [phoned, alice] in try $0.saveUser(phoned, old: alice) }

            var renamed = phoned
            renamed.displayName = "Alice\u{0}Liddell"
            renamed.modifiedAt = 20
            let answered = try await store.write {
                try $0.setProfile(id: "u1", displayName: "Alice\u{0}Liddell", email: nil, phone: nil, modifiedAt: 20)
            }
            #expect(answered == renamed)
            #expect(try await store.read { try $0.user(id: "u1") } == renamed)

            var moved = renamed
            moved.email = "alice@example.org"
            moved.phone = "+1002"
            moved.modifiedAt = 30
            let second = try await store.write {
                try $0.setProfile(id: "u1", displayName: nil, email: "alice@example.org", phone: "+1002", modifiedAt: 30)
            }
            #expect(second == moved)
            #expect(try await store.read { try $0.credentials(for: LoginIdentity(email: "ALICE@example.org")) }?.user == moved)
            #expect(try await store.read { try $0.credentials(for: LoginIdentity(email: "alice@example.com")) } == nil)

            // No such user (nor one whose id no row could hold): nil, and nothing written.
            #expect(try await store.write { try $0.setProfile(id: "u3", displayName: "x", email: nil, phone: nil, modifiedAt: 40) } == nil)
            #expect(try await store.write { try $0.setProfile(id: "u\u{0}1", displayName: "x", email: nil, phone: nil, modifiedAt: 40) } == nil)

            await Self.expectError(.userAlreadyExists, "a user with this email already exists", field: "email") {
                _ = try await store.write { try $0.setProfile(id: "u1", displayName: "x", email: "BOB@example.com", phone: nil, modifiedAt: 50) }
            }
            await Self.expectError(.userAlreadyExists, "a user with this phone already exists", field: "phone") {
                _ = try await store.write { try $0.setProfile(id: "u1", displayName: nil, email: nil, phone: "+2000", modifiedAt: 50) }
            }
            // A write that fails after it keeps nothing of it.
            await Self.expectError(.userNotFound, "a later step of the write failed") {
                try await store.write {
                    _ = try $0.setProfile(id: "u1", displayName: "Mallory", email: nil, phone: nil, modifiedAt: 60)
                    throw GuildError(.userNotFound, "a later step of the write failed")
                }
            }
            #expect(try await store.read { try $0.user(id: "u1") } == moved)
        }
    }

    @Test(arguments: Engine.available)
    func deletingAUserDeletesItsTokens(engine: Engine) async throws {
        try await engine.withStore { store in
            let alice = Self.user("u1", username: "alice")
            let first = try await Self.insert(alice, into: store)
            let bob = try await Self.insert(Self.user("u2", username: "bob"), into: store)
            #expect(try await store.write { try $0.deleteUserRecord(id: "u1") })
            #expect(try await store.read { try $0.user(id: "u1") } == nil)
            #expect(try await store.read { try $0.credentials(for: LoginIdentity(username: "alice")) } == nil)
            #expect(try await store.write { try $0.deleteUserRecord(id: "u1") } == false)
            #expect(try await Self.resolve(bob.accessToken, in: store)?.user.id == "u2")
            // A user of the same id again: the first one's tokens were deleted with it, so they name nobody.
            try await Self.insert(alice, into: store)
            #expect(try await Self.resolve(first.accessToken, in: store) == nil)
            let refresh = try #require(first.refreshToken)
            await Self.expectError(.invalidRefreshToken, "the refresh token is unknown, already used or revoked") {
                _ = try await store.write { try $0.rotateRefreshToken(hash: refresh.hash, to: Self.session(), now: 30) }
            }
        }
    }

    // MARK: - Several hosts (PostgreSQL)

    /// Two hosts, each with its own writer on the same database, rotate the same refresh token at the same moment:
    /// every time, exactly one rotation succeeds and the other is `invalidRefreshToken`. Each rotation keeps its
    /// transaction open a moment after consuming the token, so the other host's attempt meets the uncommitted
    /// rotation rather than running after it.
    @Test(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"))
    func aRefreshTokenIsSingleUseAcrossHosts() async throws {
        try await TestPostgres.withHosts(2) { hosts, connection in
            let store = PostgresUserRecordsStore(writer: hosts[0], reader: connection)
            let alice = Self.user("u1", username: "alice")
            try await Self.insert(alice, into: store)
            for round in 0..<40 {
                let start = Self.session()
                try await store.write { try $0.insertSession(start, userID: "u1", now: 20) }
                let refresh = try #require(start.refreshToken)
                let next = [Self.session(), Self.session()]
                let outcomes = await withTaskGroup(of: (Int, Result<User, any Error>).self) { group in
                    for host in 0..<2 {
                        group.addTask {
                            do {
                                let user = try await hosts[host].write { context in
                                    let transaction = PostgresTransaction(context)
                                    let user = try transaction.users.rotateRefreshToken(
                                        hash: refresh.hash,
                                        to: next[host],
                                        now: 30
                                    )
                                    try context.connection.execute("SELECT pg_sleep(0.01)")
                                    return user
                                }
                                return (host, .success(user))
                            } catch {
                                return (host, .failure(error))
                            }
                        }
                    }
                    return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                let winners = outcomes.filter { (try? $0.value.get()) == alice }.map(\.key)
                try #require(winners.count == 1, "round \(round): \(outcomes)")
                let winner = winners[0]
                let loser = 1 - winner
                #expect(throws: GuildError(.invalidRefreshToken, "")) { try outcomes[loser]?.get() }
                #expect(try await Self.resolve(next[winner].accessToken, in: store)?.user == alice)
                #expect(try await Self.resolve(next[loser].accessToken, in: store) == nil)
                #expect(try await Self.resolve(start.accessToken, in: store) == nil)
            }
            for host in hosts { try await host.close() }
        }
    }
}
