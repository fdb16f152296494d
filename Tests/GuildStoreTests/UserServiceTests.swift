import GuildCore
import GuildJSON
import GuildProtocol
import GuildStore
import GuildTestSupport
import Testing

/// Kii's user and token rules, through the real SQLite store.
struct UserServiceTests {
    @Test func registerThenLogin() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (user, session) = try await users.register(
            identity: .init(username: "alice"),
            password: "s3cret!",
            displayName: "Alice",
            fields: ["color": "red", "_hidden": 1]
        )
        #expect(!user.isPseudo)
        #expect(user.fields == ["color": "red"])
        #expect(session.refreshToken != nil)
        let (again, second) = try await users.login(identity: .init(username: "ALICE"), password: "s3cret!")
        #expect(again.id == user.id)
        #expect(second.accessToken != session.accessToken)
        #expect(try await users.resolve(accessToken: second.accessToken.text).user.id == user.id)
        await #expect(throws: GuildError(.invalidCredentials, "")) {
            try await users.login(identity: .init(username: "alice"), password: "wrong")
        }
        await #expect(throws: GuildError(.invalidCredentials, "")) {
            try await users.login(identity: .init(username: "nobody"), password: "s3cret!")
        }
    }

    @Test func duplicatesAreRejectedCaseInsensitively() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        _ = try await users.register(identity: .init(username: "bob", email: "bob@example.org"), password: "pass", displayName: nil, fields: nil)
        do {
            _ = try await users.register(identity: .init(username: "BOB"), password: "pass", displayName: nil, fields: nil)
            Issue.record("duplicate username accepted")
        } catch let error as GuildError {
            #expect(error.code == .userAlreadyExists)
            #expect(error.field == "username")
        }
        do {
            _ = try await users.register(identity: .init(username: "bob2", email: "Bob@Example.org"), password: "pass", displayName: nil, fields: nil)
            Issue.record("duplicate email accepted")
        } catch let error as GuildError {
            #expect(error.code == .userAlreadyExists)
            #expect(error.field == "email")
        }
    }

    @Test func refreshTokensAreSingleUseAndRevokeTheOldPair() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (_, first) = try await users.register(identity: .init(username: "carol"), password: "pass", displayName: nil, fields: nil)
        let refresh = try #require(first.refreshToken)
        let (_, second) = try await users.refresh(refreshToken: refresh.text)
        await #expect(throws: GuildError(.invalidRefreshToken, "")) { try await users.refresh(refreshToken: refresh.text) }
        await #expect(throws: GuildError(.invalidToken, "")) { try await users.resolve(accessToken: first.accessToken.text) }
        _ = try await users.resolve(accessToken: second.accessToken.text)
        // The new refresh token works once too.
        _ = try await users.refresh(refreshToken: try #require(second.refreshToken).text)
        await #expect(throws: GuildError(.invalidToken, "")) { try await users.resolve(accessToken: second.accessToken.text) }
    }

    @Test func passwordChangeKillsEveryToken() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (user, first) = try await users.register(identity: .init(username: "dave"), password: "old-pass", displayName: nil, fields: nil)
        let (_, second) = try await users.login(identity: .init(username: "dave"), password: "old-pass")
        await #expect(throws: GuildError(.invalidCredentials, "")) {
            try await users.changePassword(caller: caller(first, user), oldPassword: "wrong", newPassword: "new-pass")
        }
        let (_, fresh) = try await users.changePassword(caller: caller(first, user), oldPassword: "old-pass", newPassword: "new-pass")
        for old in [first, second] {
            await #expect(throws: GuildError(.invalidToken, "")) { try await users.resolve(accessToken: old.accessToken.text) }
            await #expect(throws: GuildError(.invalidRefreshToken, "")) {
                try await users.refresh(refreshToken: old.refreshToken!.text)
            }
        }
        _ = try await users.resolve(accessToken: fresh.accessToken.text)
        _ = try await users.login(identity: .init(username: "dave"), password: "new-pass")
        await #expect(throws: GuildError(.invalidCredentials, "")) {
            try await users.login(identity: .init(username: "dave"), password: "old-pass")
        }
    }

    @Test func pseudoUserUpgradesInPlaceKeepingIDAndToken() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (pseudo, session) = try await users.registerPseudo(displayName: "Guest", fields: nil)
        #expect(pseudo.isPseudo)
        #expect(session.expiresAt == nil)
        #expect(session.refreshToken == nil)
        await #expect(throws: GuildError(.permissionDenied, "")) {
            try await users.changePassword(caller: caller(session, pseudo), oldPassword: "x", newPassword: "yyyy")
        }
        let upgraded = try await users.putIdentity(caller: caller(session, pseudo), identity: .init(username: "erin"), password: "pass")
        #expect(upgraded.id == pseudo.id)
        #expect(!upgraded.isPseudo)
        #expect(try await users.resolve(accessToken: session.accessToken.text).user.id == pseudo.id)
        let (loggedIn, _) = try await users.login(identity: .init(username: "erin"), password: "pass")
        #expect(loggedIn.id == pseudo.id)
        await #expect(throws: GuildError(.identityAlreadySet, "")) {
            try await users.putIdentity(caller: caller(session, upgraded), identity: .init(username: "erin2"), password: "pass")
        }
    }

    @Test func accessTokensExpireButPseudoTokensNever() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let clock = TestClock()
        let users = try await makeService(temp.store, clock: clock, lifetime: 60)
        let (_, normal) = try await users.register(identity: .init(username: "frank"), password: "pass", displayName: nil, fields: nil)
        let (_, pseudo) = try await users.registerPseudo(displayName: nil, fields: nil)
        #expect(normal.expiresAt == clock.now + 60_000)
        clock.advance(seconds: 61)
        await #expect(throws: GuildError(.invalidToken, "")) { try await users.resolve(accessToken: normal.accessToken.text) }
        clock.advance(seconds: 100 * 365 * 24 * 3600)
        _ = try await users.resolve(accessToken: pseudo.accessToken.text)
    }

    @Test func updateMergesFieldsAndOnlyTheUserOrAnAdminMay() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (alice, aliceSession) = try await users.register(
            identity: .init(username: "gina"),
            password: "pass",
            displayName: nil,
            fields: ["a": 1, "b": 2]
        )
        let (bob, bobSession) = try await users.register(identity: .init(username: "hank"), password: "pass", displayName: nil, fields: nil)
        let updated = try await users.update(
            caller: caller(aliceSession, alice),
            userID: nil,
            patch: .init(displayName: "Gina", fields: ["a": 10, "b": nil, "c": "x"])
        )
        #expect(updated.displayName == "Gina")
        #expect(updated.fields == ["a": 10, "c": "x"])
        await #expect(throws: GuildError(.permissionDenied, "")) {
            try await users.update(caller: caller(bobSession, bob), userID: alice.id, patch: .init(displayName: "Hacked"))
        }
        let byAdmin = try await users.update(caller: caller(bobSession, bob, admin: true), userID: alice.id, patch: .init(displayName: "Fixed"))
        #expect(byAdmin.displayName == "Fixed")
        await #expect(throws: GuildError(.invalidInput, "")) {
            try await users.update(caller: caller(aliceSession, alice), userID: nil, patch: .init(displayName: String(repeating: "x", count: 51)))
        }
        let (seen, full) = try await users.get(caller: caller(bobSession, bob), userID: alice.id)
        #expect(seen.displayName == "Fixed")
        #expect(!full)
    }

    @Test func deletingAUserRevokesTheirTokens() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (user, session) = try await users.register(identity: .init(username: "ivan"), password: "pass", displayName: nil, fields: nil)
        #expect(try await users.delete(caller: caller(session, user), userID: nil) == user.id)
        await #expect(throws: GuildError(.invalidToken, "")) { try await users.resolve(accessToken: session.accessToken.text) }
        await #expect(throws: GuildError(.userNotFound, "")) { try await users.delete(caller: caller(session, user, admin: true), userID: user.id) }
        // The name is free again.
        _ = try await users.register(identity: .init(username: "ivan"), password: "pass", displayName: nil, fields: nil)
    }

    @Test func logoutRevokesOnlyThatSession() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (user, first) = try await users.register(identity: .init(username: "judy"), password: "pass", displayName: nil, fields: nil)
        let (_, second) = try await users.login(identity: .init(username: "judy"), password: "pass")
        try await users.logout(caller: caller(first, user))
        await #expect(throws: GuildError(.invalidToken, "")) { try await users.resolve(accessToken: first.accessToken.text) }
        await #expect(throws: GuildError(.invalidRefreshToken, "")) { try await users.refresh(refreshToken: first.refreshToken!.text) }
        _ = try await users.resolve(accessToken: second.accessToken.text)
    }
}
