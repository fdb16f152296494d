import Foundation
import GuildClient
import GuildProtocol
import GuildServer
import GuildTestSupport
import Testing

/// What one peer can make the daemon hold or do is bounded, and past each bound it gets the documented
/// error while everyone else is served (protocol/errors.md, "Other limits").
@Suite(.timeLimit(.minutes(10)))
struct LimitsTests {
    @Test func aLineThatNeverEndsIsCutOffAfterTheFrameTimeout() async throws {
        try await TestDaemon.run(configure: { $0.frameTimeoutSeconds = 0.5 }) { socket, _ in
            let bystander = try RawConnection(path: socket)
            let hanging = try RawConnection(path: socket)
            await hanging.send(#"{"jsonrpc":"2.0","id":1,"method":"system.pi"#)
            // The line never ends: a reply at all is the frame timeout's (the wait only catches a hang).
            let reply = try #require(await hanging.readJSON(timeout: 30) as? [String: Any])
            #expect(reply.errorCode == -32600)
            #expect(reply.errorReason == "FRAME_TIMEOUT")
            #expect(reply["id"] is NSNull)
            #expect(await hanging.isClosedByPeer())
            #expect(await bystander.pings())
        }
    }

    @Test func aWholeLineOverTheLimitInOneReadIsRefused() async throws {
        // NIO's line decoder checks its limit only while a line is incomplete: a line that arrives whole in
        // one read must be refused by the connection itself (found by the FuzzDispatch fuzzer).
        try await TestDaemon.run(configure: { $0.maximumFrameBytes = 4096 }) { socket, _ in
            let connection = try RawConnection(path: socket)
            let padding = String(repeating: " ", count: 4200)
            await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"system.ping"\#(padding)}"# + "\n")
            let reply = try #require(await connection.readJSON() as? [String: Any])
            #expect(reply.errorReason == "FRAME_TOO_LARGE", "\(reply)")
            #expect(reply["id"] is NSNull)
            #expect(await connection.isClosedByPeer())
            // At the limit, it is served.
            let fitting = try RawConnection(path: socket)
            let fill = String(repeating: " ", count: 4096 - 48)
            await fitting.send(#"{"jsonrpc":"2.0","id":1,"method":"system.ping"\#(fill)}"# + "\n")
            #expect((await fitting.readJSON() as? [String: Any])?["result"] as? String == "pong")
        }
    }

    @Test func repliesAheadOfAnOversizedFrameAreWrittenWholeBeforeTheClose() async throws {
        // Two `rpc.discover` replies (about 200 KiB each) overfill the socket's buffer. The close used to fail the
        // writes still pending, so a peer that read after it lost the rest of them and FRAME_TOO_LARGE (found by
        // the FuzzDispatch fuzzer in CI).
        try await TestDaemon.run(configure: { $0.maximumFrameBytes = 4096 }) { socket, _ in
            let connection = try RawConnection(path: socket)
            let discover = #"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"# + "\n"
            let oversized = "{" + String(repeating: " ", count: 4200) + "}\n"
            await connection.send(discover + discover + oversized)
            // Not read yet, so that the daemon's writes wait on the full buffer when it refuses the frame.
            try await Task.sleep(for: .milliseconds(500))
            for _ in 0..<2 {
                let reply = try #require(await connection.readJSON() as? [String: Any])
                #expect((reply["result"] as? [String: Any])?["methods"] is [Any])
            }
            let refusal = try #require(await connection.readJSON() as? [String: Any])
            #expect(refusal.errorReason == "FRAME_TOO_LARGE")
            #expect(await connection.isClosedByPeer())
        }
    }

    @Test func aTrickledRequestIsCutOffWhileWholeLinesAreNot() async throws {
        try await TestDaemon.run(configure: { $0.frameTimeoutSeconds = 0.6 }) { socket, _ in
            // Whole lines, one every 0.3 s for longer than the timeout: never cut off.
            let steady = try RawConnection(path: socket)
            for _ in 0..<5 {
                #expect(await steady.pings())
                try await Task.sleep(for: .milliseconds(300))
            }
            // One byte every 0.1 s: the line is still unfinished after 0.6 s.
            let trickler = try RawConnection(path: socket)
            var closed = false
            for byte in Array(#"{"jsonrpc":"2.0","id":1,"method":"system.ping"}"#.utf8) {
                guard await trickler.send([byte]) else {
                    closed = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
                if await trickler.readLine(timeout: 0) != nil {
                    closed = true
                    break
                }
            }
            #expect(closed, "a line trickled over 4.7 s was never cut off")
            #expect(await steady.pings())
        }
    }

    @Test func aBatchOfHugeRepliesIsBoundedAndEveryEntryAnswered() async throws {
        // A 300 KB budget rather than the default 4 MiB keeps the test's own JSON parsing cheap.
        try await TestDaemon.run(configure: { $0.maximumBatchReplyBytes = 300_000 }) { socket, _ in
            let connection = try RawConnection(path: socket)
            let entries = (1...1000).map { (id: Int) -> String in #"{"jsonrpc":"2.0","id":\#(id),"method":"rpc.discover"}"# }
            let batch = "[" + entries.joined(separator: ",") + "]\n"
            await connection.send(batch)
            let line = try #require(await connection.readLine(timeout: 20))
            let size = line.utf8.count
            let bound = 300_000 + 200 * 1000
            #expect(size < bound, "the reply is \(size) bytes")
            let replies = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]])
            #expect(Set(replies.compactMap { $0["id"] as? Int }) == Set(1...1000))
            let tooLarge = replies.filter { $0.errorReason == "RESPONSE_TOO_LARGE" }
            #expect(!tooLarge.isEmpty)
            #expect(tooLarge.allSatisfy { $0.errorCode == -32005 })
            #expect(replies.contains { $0["result"] != nil })
            #expect(await connection.pings())
        }
    }

    @Test func aBatchOfTasksIsBoundedToo() async throws {
        try await TestDaemon.run(configure: { $0.maximumBatchReplyBytes = 1000 }) { socket, _ in
            let connection = try RawConnection(path: socket)
            let entries = (1...20).map { (id: Int) -> String in #"{"jsonrpc":"2.0","id":\#(id),"method":"session.whoami"}"# }
            let batch = "[" + entries.joined(separator: ",") + "]\n"
            await connection.send(batch)
            let replies = try #require(await connection.readJSON() as? [[String: Any]])
            #expect(replies.count == 20)
            let answered = replies.filter { $0["result"] != nil }
            #expect(!answered.isEmpty && answered.count < 20)
            #expect(replies.filter { $0["result"] == nil }.allSatisfy { $0.errorReason == "RESPONSE_TOO_LARGE" })
        }
    }

    @Test func listParamsPastTheirLimitAreRefusedBeforeAnythingRuns() async throws {
        try await TestDaemon.run { socket, _ in
            let user = try await TestUser.registerPseudo(socket, displayName: "lists")
            let connection = try RawConnection(path: socket)
            await connection.send(
                #"{"jsonrpc":"2.0","id":0,"method":"session.authenticate","params":{"accessToken":"\#(user.token)"}}"# + "\n"
            )
            _ = await connection.readJSON()
            let ids = (0...1000).map { (index: Int) -> String in "\"g\(index)\"" }.joined(separator: ",")
            await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"groupIDs":[\#(ids)]}}"# + "\n")
            let reply = try #require(await connection.readJSON() as? [String: Any])
            #expect(reply.errorCode == -32602)
            #expect(reply.errorReason == "TOO_MANY_ITEMS")
            #expect(reply.errorField == "groupIDs")
            #expect(((reply["error"] as? [String: Any])?["data"] as? [String: Any])?["limit"] as? Int == 1000)
            // At the limit it is accepted.
            let atLimit = (1...1000).map { (index: Int) -> String in "\"g\(index)\"" }.joined(separator: ",")
            await connection.send(#"{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"groupIDs":[\#(atLimit)]}}"# + "\n")
            let accepted = try #require(await connection.readJSON() as? [String: Any])
            #expect(accepted["result"] != nil, "\(accepted)")
            await user.client.close()
        }
    }

    @Test func expensiveCallsPastTheirBoundAreRefusedNotQueued() async throws {
        try await TestDaemon.run { socket, _ in
            let connection = try RawConnection(path: socket)
            let checks = (1...24).map { (id: Int) -> String in #"{"jsonrpc":"2.0","id":\#(id),"method":"system.check"}"# + "\n" }.joined()
            await connection.send(checks)
            var replies: [[String: Any]] = []
            while replies.count < 24, let reply = await connection.readJSON() as? [String: Any] { replies.append(reply) }
            #expect(replies.count == 24)
            let busy = replies.filter { $0.errorReason == "SERVER_BUSY" }
            #expect(replies.filter { $0["result"] != nil }.count + busy.count == 24)
            #expect(!busy.isEmpty)
            #expect(busy.allSatisfy { $0.errorCode == -32004 })
            let scopes = Set(busy.compactMap { (($0["error"] as? [String: Any])?["data"] as? [String: Any])?["scope"] as? String })
            #expect(scopes.isSubset(of: ["connection", "principal", "daemon"]) && !scopes.isEmpty)
            // Once they are done, the bound is free again.
            await connection.send(#"{"jsonrpc":"2.0","id":99,"method":"system.check"}"# + "\n")
            let again = try #require(await connection.readJSON() as? [String: Any])
            #expect((again["result"] as? [String: Any])?["ok"] as? Bool == true)
        }
    }

    @Test func pipelinedHugeRepliesWaitWhileTheirReaderDoesNot() async throws {
        try await TestDaemon.run { socket, _ in
            let hog = try RawConnection(path: socket)
            let count = 300
            let lines = (1...count).map { (id: Int) -> String in #"{"jsonrpc":"2.0","id":\#(id),"method":"rpc.discover"}"# + "\n" }.joined()
            async let sent = hog.send(lines)
            // Nobody reads the hog's ~20 MB of replies for a while: others are served meanwhile.
            let bystander = try RawConnection(path: socket)
            for _ in 0..<5 { #expect(await bystander.pings()) }
            #expect(await sent)
            // Every request is answered, in order (they were held back, never dropped). Only each line's head
            // is read: parsing 20 MB of JSON would starve the other tests running beside this one.
            var ids: [Int] = []
            while ids.count < count, let line = await hog.readLine(timeout: 30) {
                let head = line.utf8.prefix(40)
                let prefix = #"{"jsonrpc":"2.0","id":"#.utf8
                guard head.starts(with: prefix) else { break }
                ids.append(Int(String(decoding: head.dropFirst(prefix.count).prefix { $0 != UInt8(ascii: ",") }, as: UTF8.self)) ?? -1)
            }
            #expect(ids == Array(1...count))
        }
    }

    @Test func aSubscriberThatDoesNotReadEndsLaggedByBytes() async throws {
        try await TestDaemon.run(configure: { $0.maximumOutputBytes = 64 * 1024 }) { socket, _ in
            let client = try await GuildClient.connect(path: socket)
            let owner = try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
            let group = try await client.call(GroupMethods.Create.self, .init(name: "busy", owner: owner.user.userID))
            let silent = try RawConnection(path: socket)
            await silent.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"all":true}}"# + "\n")
            _ = await silent.readLine()
            // Events flow; the subscriber never reads.
            for index in 0..<400 {
                let name = "name \(index) " + String(repeating: "x", count: 150)
                _ = try await client.call(GroupMethods.Rename.self, .init(groupID: group.group.groupID, name: name))
            }
            // Everything it was sent, then events.ended LAGGED: far fewer than 400 notifications.
            var notifications = 0
            var ended: [String: Any]?
            while let message = await silent.readJSON() as? [String: Any] {
                if message["method"] as? String == "events.ended" {
                    ended = message["params"] as? [String: Any]
                    break
                }
                notifications += 1
            }
            #expect(ended?["reason"] as? String == "LAGGED")
            #expect(notifications < 400)
            #expect(ended?["lastSeq"] as? Int != nil)
            #expect(await silent.pings())
            await client.close()
        }
    }

    @Test func adminConnectionsDoNotIdleOut() async throws {
        try await TestDaemon.run(configure: { $0.idleTimeoutSeconds = 0.3 }) { socket, _ in
            // The test runs as root, an admin: its connections are exempt (non-admin peers are tested end to end).
            let connection = try RawConnection(path: socket)
            try await Task.sleep(for: .seconds(1))
            #expect(await connection.pings())
        }
    }
}
