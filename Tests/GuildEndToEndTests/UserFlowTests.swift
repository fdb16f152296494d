import Foundation
import GuildClient
import GuildProtocol
import GuildTestSupport
import Testing

/// Kii's user and session rules through the wire (protocol/users-and-groups.md), with GuildClient.
@Suite(.endToEnd)
struct UserFlowTests {
    @Test func pseudoUserUpgradeKeepsIDAndToken() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        let pseudo = try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: "Guest"))
        #expect(pseudo.user.isPseudo)
        #expect(pseudo.expiresAt == nil)
        #expect(pseudo.refreshToken == nil)
        let upgraded = try await client.call(UserMethods.PutIdentity.self, .init(username: "upgraded", password: "pass"))
        #expect(upgraded.userID == pseudo.user.userID)
        #expect(!upgraded.isPseudo)

        let other = try await GuildClient.connect(path: scratch.socket)
        let session = try await other.call(SessionMethods.Authenticate.self, .init(accessToken: pseudo.accessToken))
        #expect(session.user?.userID == pseudo.user.userID)
        let login = try await other.call(UserMethods.Login.self, .init(username: "upgraded", password: "pass"))
        #expect(login.user.userID == pseudo.user.userID)
        await client.close()
        await other.close()
    }

    /// `GuildClient.calls` against the real daemon: many `user.get` calls in flight from one task, each
    /// answered on its own (a profile, or USER_NOT_FOUND for the unknown ones), in the order asked.
    @Test func pipelinedCallsAreAnsweredOneByOneInTheOrderAsked() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        var known: [String] = []
        for index in 0..<5 {
            known.append(try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: "p\(index)")).user.userID)
        }
        // Admin (the test's uid) may read any user; 200 calls, every fourth for a user that does not exist.
        let asked = (0..<200).map { $0 % 4 == 3 ? "nobody-\($0)" : known[$0 % known.count] }
        let outcomes = try await client.calls(UserMethods.Get.self, asked.map { .init(userID: $0) })
        #expect(outcomes.count == asked.count)
        for (userID, outcome) in zip(asked, outcomes) {
            switch outcome {
            case .success(let profile):
                #expect(profile.userID == userID)
            case .failure(let error):
                #expect(userID.hasPrefix("nobody"), "\(userID): \(error)")
                #expect(error.reason == "USER_NOT_FOUND")
            }
        }
        #expect(outcomes.filter { (try? $0.get()) == nil }.count == 50)
        let pongs = try await client.calls(SystemMethods.Ping.self, count: 64)
        #expect(pongs.allSatisfy { (try? $0.get()) == "pong" })
        await client.close()
    }

    @Test func refreshIsSingleUseAndPasswordChangeRevokesEverywhere() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let first = try await GuildClient.connect(path: scratch.socket)
        let registered = try await first.call(UserMethods.Register.self, .init(username: "zed", password: "old-pass"))
        let refreshed = try await first.call(UserMethods.Refresh.self, .init(refreshToken: try #require(registered.refreshToken)))
        do {
            _ = try await first.call(UserMethods.Refresh.self, .init(refreshToken: try #require(registered.refreshToken)))
            Issue.record("a refresh token worked twice")
        } catch let error as RPCError {
            #expect(error.code == .invalidRefreshToken)
            #expect(error.reason == "INVALID_REFRESH_TOKEN")
        }
        let second = try await GuildClient.connect(path: scratch.socket)
        do {
            _ = try await second.call(SessionMethods.Authenticate.self, .init(accessToken: registered.accessToken))
            Issue.record("the access token survived its refresh")
        } catch let error as RPCError {
            #expect(error.code == .invalidToken)
        }
        _ = try await second.call(SessionMethods.Authenticate.self, .init(accessToken: refreshed.accessToken))
        #expect(try await second.call(UserMethods.Get.self, .init()).username == "zed")

        // A password change on the first connection revokes the second connection's session.
        let changed = try await first.call(UserMethods.ChangePassword.self, .init(oldPassword: "old-pass", newPassword: "new-pass"))
        do {
            _ = try await second.call(UserMethods.Get.self, .init())
            Issue.record("a revoked session kept working")
        } catch let error as RPCError {
            #expect(error.code == .invalidToken)
        }
        // The first connection is bound to the new session.
        let whoami = try await first.call(SessionMethods.WhoAmI.self)
        #expect(whoami.user?.userID == changed.user.userID)
        await first.close()
        await second.close()
    }

    @Test func validationAndDuplicatesThroughTheWire() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        for (username, password, field) in [
            ("ab", "pass", "username"), (String(repeating: "x", count: 65), "pass", "username"),
            ("good-name", "abc", "password"), ("good-name", "abcＫdef", "password"),
        ] {
            do {
                _ = try await client.call(UserMethods.Register.self, .init(username: username, password: password))
                Issue.record("\(username)/\(password) accepted")
            } catch let error as RPCError {
                #expect(error.code == .invalidParams)
                #expect(error.reason == "INVALID_INPUT_DATA")
                #expect(error.field == field)
            }
        }
        _ = try await client.call(UserMethods.Register.self, .init(username: "-._", password: "with space"))
        do {
            _ = try await client.call(UserMethods.Register.self, .init(username: "-._", password: "pass"))
            Issue.record("duplicate accepted")
        } catch let error as RPCError {
            #expect(error.code == .userAlreadyExists)
        }
        await client.close()
    }

    @Test func manyConcurrentCallsAndBatchesOnOneConnection() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<500 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        let pong = try await client.call(SystemMethods.Ping.self)
                        #expect(pong == "pong")
                    } else {
                        let session = try await client.call(SessionMethods.WhoAmI.self)
                        #expect(session.user == nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        let replies = try await client.batch([
            try .call(SystemMethods.Ping.self, NoParams()),
            try .notification("system.ping"),
            try .call("no.such"),
            try .call(UserMethods.RegisterPseudo.self, .init(displayName: "batched")),
        ])
        #expect(replies.count == 4)
        #expect(try replies[0]?.get() == Array(#""pong""#.utf8))
        #expect(replies[1] == nil)
        if case .failure(let error)? = replies[2] { #expect(error.code == .methodNotFound) } else { Issue.record("no error") }
        let pseudo = try RPCCoding.decode(AuthResult.self, from: try #require(replies[3]).get())
        #expect(pseudo.user.displayName == "batched")
        await client.close()
    }
}
