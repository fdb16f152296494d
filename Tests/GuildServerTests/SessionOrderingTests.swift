import Foundation
import GuildClient
import GuildProtocol
import Testing

/// Requests run concurrently, but a request that changes the session finishes before later ones start.
@Suite(.timeLimit(.minutes(2)))
struct SessionOrderingTests {
    @Test func pipelinedAuthenticateThenCallSeesTheSession() async throws {
        try await TestDaemon.run { socket, _ in
            let setup = try await GuildClient.connect(path: socket)
            let auth = try await setup.call(UserMethods.RegisterPseudo.self, .init(displayName: "p"))
            let connection = try RawConnection(path: socket)
            await connection.send(
                #"{"jsonrpc":"2.0","id":1,"method":"session.authenticate","params":{"accessToken":"\#(auth.accessToken)"}}"# + "\n"
                    + #"{"jsonrpc":"2.0","id":2,"method":"session.whoami"}"# + "\n"
                    + #"{"jsonrpc":"2.0","id":3,"method":"events.subscribe","params":{}}"# + "\n"
            )
            var replies: [Int: [String: Any]] = [:]
            while replies.count < 3, let reply = await connection.readJSON() as? [String: Any] {
                replies[reply["id"] as? Int ?? 0] = reply
            }
            let whoami = try #require(replies[2]?["result"] as? [String: Any])
            #expect((whoami["user"] as? [String: Any])?["userID"] as? String == auth.user.userID)
            #expect(replies[3]?["result"] != nil, "\(replies[3] ?? [:])")
            // In a batch too: entries run in order when one changes the session.
            let fresh = try RawConnection(path: socket)
            await fresh.send(
                #"[{"jsonrpc":"2.0","id":1,"method":"session.authenticate","params":{"accessToken":"\#(auth.accessToken)"}},{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{}}]"#
                    + "\n"
            )
            let batch = try #require(await fresh.readJSON() as? [[String: Any]])
            #expect(batch.count == 2)
            #expect(batch.allSatisfy { $0["result"] != nil }, "\(batch)")
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
