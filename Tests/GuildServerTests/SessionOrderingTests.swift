import Foundation
import GuildClient
import GuildProtocol
import GuildTestSupport
import Testing

/// Requests run concurrently, but a request that changes the session finishes before later ones start.
@Suite(.timeLimit(.minutes(10)))
struct SessionOrderingTests {
    @Test func pipelinedAuthenticateThenCallSeesTheSession() async throws {
        try await TestDaemon.run { socket, _ in
            let user = try await TestUser.registerPseudo(socket, displayName: "p")
            let connection = try RawConnection(path: socket)
            await connection.send(
                #"{"jsonrpc":"2.0","id":1,"method":"session.authenticate","params":{"accessToken":"\#(user.token)"}}"# + "\n"
                    + #"{"jsonrpc":"2.0","id":2,"method":"session.whoami"}"# + "\n"
                    + #"{"jsonrpc":"2.0","id":3,"method":"events.subscribe","params":{}}"# + "\n"
            )
            var replies: [Int: [String: Any]] = [:]
            while replies.count < 3, let reply = await connection.readJSON() as? [String: Any] {
                replies[reply["id"] as? Int ?? 0] = reply
            }
            let whoami = try #require(replies[2]?["result"] as? [String: Any])
            #expect((whoami["user"] as? [String: Any])?["userID"] as? String == user.id)
            #expect(replies[3]?["result"] != nil, "\(replies[3] ?? [:])")
            // In a batch too: entries run in order when one changes the session.
            let fresh = try RawConnection(path: socket)
            await fresh.send(
                #"[{"jsonrpc":"2.0","id":1,"method":"session.authenticate","params":{"accessToken":"\#(user.token)"}},{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{}}]"#
                    + "\n"
            )
            let batch = try #require(await fresh.readJSON() as? [[String: Any]])
            #expect(batch.count == 2)
            #expect(batch.allSatisfy { $0["result"] != nil }, "\(batch)")
        }
    }

    /// Requests pipelined between `session.authenticate` calls act as the session bound when they were
    /// sent, never as one bound later, however the tasks are scheduled.
    @Test func pipelinedRequestsActAsTheSessionOfTheirPlaceInTheStream() async throws {
        try await TestDaemon.run { socket, _ in
            let setup = try await GuildClient.connect(path: socket)
            var users: [(id: String, token: String)] = []
            for name in ["a", "b"] {
                let auth = try await setup.call(UserMethods.RegisterPseudo.self, .init(displayName: name))
                users.append((auth.user.userID, auth.accessToken))
            }
            let connection = try RawConnection(path: socket)
            for round in 0..<20 {
                var lines = ""
                var expected: [Int: String] = [:]
                for pair in 0..<60 {
                    let user = users[pair % 2]
                    let base = (round * 60 + pair) * 3
                    lines += #"{"jsonrpc":"2.0","id":\#(base),"method":"session.authenticate","params":{"accessToken":"\#(user.token)"}}"# + "\n"
                    lines += #"{"jsonrpc":"2.0","id":\#(base + 1),"method":"user.get","params":{}}"# + "\n"
                    lines += #"{"jsonrpc":"2.0","id":\#(base + 2),"method":"session.whoami"}"# + "\n"
                    expected[base + 1] = user.id
                    expected[base + 2] = user.id
                }
                await connection.send(lines)
                var seen = 0
                while seen < 180, let reply = await connection.readJSON() as? [String: Any] {
                    seen += 1
                    guard let id = reply["id"] as? Int, let want = expected[id] else { continue }
                    let result = reply["result"] as? [String: Any]
                    let got = (result?["userID"] as? String) ?? ((result?["user"] as? [String: Any])?["userID"] as? String)
                    #expect(got == want, "request \(id) acted as the wrong user")
                }
                #expect(seen == 180)
            }
        }
    }

    /// Subscribing over and over while writes stream in must never wedge the daemon.
    @Test func subscribingUnderWriteLoadNeverWedges() async throws {
        try await TestDaemon.run { socket, _ in
            let writer = try await GuildClient.connect(path: socket)
            let auth = try await writer.call(UserMethods.RegisterPseudo.self, .init(displayName: "w"))
            _ = try await writer.call(GroupMethods.Create.self, .init(name: "G", groupID: "g"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for round in 0..<100 {
                        let entries = try (0..<20).map { try BatchEntry.call(GroupMethods.Rename.self, .init(groupID: "g", name: "r\(round)-\($0)")) }
                        _ = try await writer.batch(entries)
                    }
                }
                for _ in 0..<2 {
                    group.addTask {
                        let watcher = try await GuildClient.connect(path: socket)
                        _ = try await watcher.call(SessionMethods.Authenticate.self, .init(accessToken: auth.accessToken))
                        for _ in 0..<150 {
                            let subscription = try await watcher.subscribe()
                            try await watcher.unsubscribe(subscription)
                        }
                        await watcher.close()
                    }
                }
                try await group.waitForAll()
            }
            let after = try await writer.call(GroupMethods.Rename.self, .init(groupID: "g", name: "after"))
            #expect(after.name == "after")
        }
    }
}
