import Foundation
import Glibc
import GuildClient
import GuildJSON
import GuildProtocol
import NIOCore
import NIOPosix
import Testing

/// Runs `body` with a fake server and a client connected to it; closes both afterwards.
func withFakeServer<T>(
    onConnect: @escaping @Sendable () -> [FakeServer.Action] = { [] },
    handler: @escaping FakeServer.Handler,
    _ body: (GuildClient, FakeServer) async throws -> T
) async throws -> T {
    let server = try FakeServer(onConnect: onConnect, handler: handler)
    defer { server.stop() }
    let client = try await GuildClient.connect(path: server.path)
    do {
        let result = try await body(client, server)
        await client.close()
        return result
    } catch {
        await client.close()
        throw error
    }
}

/// How soon a call that must not wait for a reply (the connection closed, nothing to answer) returns: half the
/// tests' ten-minute limit, which catches a call that hangs; the client has no timeout of its own, so this only
/// tells a hang apart with a clearer message. A loaded machine needs the room: a 5 s bound once took 7.2 s in CI
/// (~480 tests at once on two cores), and a 30 s one 30.3 s beside two busy loops (618 tests).
let promptly: Duration = .seconds(300)

/// A handler that answers `system.ping` with "pong" and ignores everything else.
let pingHandler: FakeServer.Handler = { request in
    guard request.method == "system.ping", let id = request.idJSON else { return [] }
    return [.line(FakeServer.result(id: id, #""pong""#))]
}

/// Parses a received line as a JSON object.
func jsonObject(_ line: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
}

struct GuildClientTests {
    // MARK: - Calls

    @Test(.timeLimit(.minutes(10)))
    func typedCallReturnsDecodedResult() async throws {
        try await withFakeServer(handler: pingHandler) { client, server in
            let pong = try await client.call(SystemMethods.Ping.self)
            #expect(pong == "pong")
            let lines = server.receivedLines
            #expect(lines.count == 1)
            let request = try jsonObject(try #require(lines.first))
            #expect(request["jsonrpc"] as? String == "2.0")
            #expect(request["method"] as? String == "system.ping")
            #expect(request["id"] as? Int != nil)
            #expect(request["params"] == nil)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func typedCallWithParamsSendsThemAndDecodesAStructuredResult() async throws {
        let auth = #"{"user":{"userID":"u1","isPseudo":true,"createdAt":5,"displayName":"Ada"},"accessToken":"tok"}"#
        try await withFakeServer(handler: { request in
            guard request.method == "user.registerPseudo", let id = request.idJSON else { return [] }
            return [.line(FakeServer.result(id: id, auth))]
        }) { client, server in
            let result = try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: "Ada"))
            #expect(result.accessToken == "tok")
            #expect(result.refreshToken == nil)
            #expect(result.user == UserProfile(userID: "u1", displayName: "Ada", isPseudo: true, createdAt: 5))
            let request = try jsonObject(try #require(server.receivedLines.first))
            let params = try #require(request["params"] as? [String: Any])
            #expect(params.count == 1)
            #expect(params["displayName"] as? String == "Ada")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func repliesCutAnywhereOrEndingInCRLFAreRead() async throws {
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            let reply = Array(FakeServer.result(id: id, #""split\nreply""#).utf8)
            // The reply arrives in three writes, cut after its first member and inside the result, and ends
            // in \r\n.
            return [
                .raw(Array(reply[..<10])), .delay(.milliseconds(20)), .raw(Array(reply[10..<(reply.count - 3)])),
                .delay(.milliseconds(20)), .raw(Array(reply[(reply.count - 3)...]) + [0x0D, 0x0A]),
            ]
        }) { client, _ in
            let first = try await client.call("x")
            let second = try await client.call("y")
            #expect(first == "split\nreply")
            #expect(second == "split\nreply")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aReplyLineOverTheFrameLimitClosesTheConnectionAndFailsTheCall() async throws {
        let server = try FakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            return [.line(FakeServer.result(id: id, "\"" + String(repeating: "x", count: 500) + "\""))]
        })
        defer { server.stop() }
        let client = try await GuildClient.connect(path: server.path, maximumFrameBytes: 256)
        await #expect(throws: GuildClientError.self) { _ = try await client.call("big") }
        #expect(!client.isConnected)
    }

    @Test(.timeLimit(.minutes(10)))
    func tasksOnTheClientsTaskExecutorMakeManyCallsAtOnce() async throws {
        try await withFakeServer(handler: pingHandler) { client, server in
            let replies = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<32 {
                    group.addTask(executorPreference: client.taskExecutor) {
                        var replies: [String] = []
                        for _ in 0..<10 { replies.append(try await client.call(SystemMethods.Ping.self)) }
                        return replies
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(replies == Array(repeating: "pong", count: 320))
            #expect(server.receivedLines.count == 320)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func untypedCallReturnsJSONValue() async throws {
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            return [.line(FakeServer.result(id: id, #"{"sum":3,"list":[1.5,null,"x"]}"#))]
        }) { client, server in
            let value = try await client.call("sum", params: [1, 2])
            #expect(value == ["sum": 3, "list": [1.5, nil, "x"]])
            let request = try jsonObject(try #require(server.receivedLines.first))
            #expect(request["params"] as? [Int] == [1, 2])
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func serverErrorIsThrownAsRPCErrorWithCodeReasonAndField() async throws {
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            return [
                .line(
                    FakeServer.error(
                        id: id,
                        code: -32602,
                        message: "Invalid params: missing password",
                        reason: "INVALID_PARAMS",
                        field: "password"
                    )
                )
            ]
        }) { client, _ in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.call(UserMethods.Login.self, .init(username: "ada", password: ""))
            }
            #expect(error?.code == .invalidParams)
            #expect(error?.code.rawValue == -32602)
            #expect(error?.message == "Invalid params: missing password")
            #expect(error?.reason == "INVALID_PARAMS")
            #expect(error?.field == "password")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func applicationErrorWithoutFieldIsThrown() async throws {
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            return [.line(FakeServer.error(id: id, code: 40102, message: "Wrong password", reason: "INVALID_CREDENTIALS"))]
        }) { client, _ in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.callRaw("user.login", params: Array(#"{"username":"a","password":"b"}"#.utf8))
            }
            #expect(error?.code == .invalidCredentials)
            #expect(error?.reason == ErrorReason.invalidCredentials)
            #expect(error?.field == nil)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func resultOfTheWrongTypeIsAnInvalidResponse() async throws {
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            return [.line(FakeServer.result(id: id, "42"))]
        }) { client, _ in
            let error = await #expect(throws: GuildClientError.self) {
                _ = try await client.call(SystemMethods.Ping.self)
            }
            guard case .invalidResponse(let detail) = error else {
                Issue.record("expected invalidResponse, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("system.ping"))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func fiftyConcurrentCallsAnsweredInReverseOrderGetTheirOwnResults() async throws {
        let count = 50
        let waiting = Locked<[(id: String, n: Int)]>([])
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON, let n = (request.params as? [String: Any])?["n"] as? Int else { return [] }
            let batch = waiting.withLock { (waiting: inout [(id: String, n: Int)]) -> [(id: String, n: Int)]? in
                waiting.append((id, n))
                return waiting.count == count ? waiting : nil
            }
            guard let batch else { return [] }
            return batch.reversed().map { .line(FakeServer.result(id: $0.id, #"{"n":\#($0.n),"square":\#($0.n * $0.n)}"#)) }
        }) { client, server in
            let results = try await withThrowingTaskGroup(of: (Int, JSONValue).self) { group in
                for n in 0..<count {
                    group.addTask { (n, try await client.call("echo", params: ["n": .int(Int64(n))])) }
                }
                var results: [Int: JSONValue] = [:]
                for try await (n, value) in group { results[n] = value }
                return results
            }
            #expect(results.count == count)
            for n in 0..<count {
                #expect(results[n] == ["n": .int(Int64(n)), "square": .int(Int64(n * n))], "call \(n)")
            }
            let ids = try server.receivedLines.map { try jsonObject($0)["id"] as? Int }
            #expect(Set(ids.compactMap { $0 }).count == count, "every request has its own id")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func delayedOutOfOrderReplyIsMatched() async throws {
        let first = Locked<String?>(nil)
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON, let tag = (request.params as? [String: Any])?["tag"] as? String else { return [] }
            let held = first.withLock { (held: inout String?) -> String? in
                if let previous = held { return previous }
                held = "\(id)|\(tag)"
                return nil
            }
            guard let held else { return [] }
            let parts = held.split(separator: "|").map(String.init)
            return [
                .line(FakeServer.result(id: id, #""\#(tag)""#)),
                .delay(.milliseconds(150)),
                .line(FakeServer.result(id: parts[0], #""\#(parts[1])""#)),
            ]
        }) { client, _ in
            async let a = client.call("tag", params: ["tag": "a"])
            async let b = client.call("tag", params: ["tag": "b"])
            let (resultA, resultB) = try await (a, b)
            #expect(resultA == "a")
            #expect(resultB == "b")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func repliesWithUnknownIDsAreIgnored() async throws {
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            return [
                .line(FakeServer.result(id: "987654321", #""stray""#)),
                .line(FakeServer.result(id: #""\#(id)""#, #""string id, not ours""#)),
                .line("this is not JSON"),
                .line(FakeServer.result(id: id, #""pong""#)),
            ]
        }) { client, _ in
            let pong = try await client.call(SystemMethods.Ping.self)
            #expect(pong == "pong")
            #expect(client.isConnected)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func callRawReturnsExactResultBytesAndSendsParamsVerbatim() async throws {
        let result = #"{"b": 1.50, "a":[1, 2 ], "s":"x\u00e9\n"}"#
        let params = #"[1, 2.50, {"k" : "v"}]"#
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            return [.line(#"{"jsonrpc":"2.0","id":\#(id),"result": \#(result) }"#)]
        }) { client, server in
            let bytes = try await client.callRaw("raw.method", params: Array(params.utf8))
            #expect(String(decoding: bytes, as: UTF8.self) == result)
            let line = String(decoding: try #require(server.receivedLines.first), as: UTF8.self)
            #expect(line.contains(#""params":\#(params)"#))
            #expect(line.contains(#""method":"raw.method""#))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func requestsAreSingleLinesEvenWhenParamsContainNewlines() async throws {
        let text = "line one\nline two\r\n\"quoted\"\t\u{2028}end"
        try await withFakeServer(handler: { request in
            if let entries = request.batch {
                let replies = entries.compactMap { FakeServer.idJSON(of: $0).map { FakeServer.result(id: $0, "true") } }
                return [.line("[" + replies.joined(separator: ",") + "]")]
            }
            guard let id = request.idJSON else { return [] }
            return [.line(FakeServer.result(id: id, "true"))]
        }) { client, server in
            _ = try await client.call("echo", params: ["text": .string(text), "list": [.string("\n")]])
            _ = try await client.callRaw("method\nwith newline", params: nil)
            try await client.notify("note", params: ["text": .string(text)])
            let results = try await client.batch([
                try .call("echo", params: ["text": .string(text)]),
                try .notification("note", params: ["text": .string(text)]),
            ])
            #expect(results.count == 2)
            #expect(results[1] == nil)
            let lines = try await server.waitForLines { $0.count >= 4 }
            #expect(lines.count == 4)

            let bytes = server.receivedBytes
            #expect(bytes.last == 0x0A)
            #expect(bytes.filter { $0 == 0x0A }.count == 4, "exactly one newline per message")
            #expect(!bytes.contains(0x0D))

            let call = try jsonObject(lines[0])
            #expect((call["params"] as? [String: Any])?["text"] as? String == text)
            let raw = try jsonObject(lines[1])
            #expect(raw["method"] as? String == "method\nwith newline")
            let note = try jsonObject(lines[2])
            #expect(note["id"] == nil)
            #expect((note["params"] as? [String: Any])?["text"] as? String == text)
            let batch = try #require(try JSONSerialization.jsonObject(with: Data(lines[3])) as? [[String: Any]])
            #expect(batch.count == 2)
            #expect((batch[0]["params"] as? [String: Any])?["text"] as? String == text)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func requestIDsAreDistinct() async throws {
        try await withFakeServer(handler: pingHandler) { client, server in
            for _ in 0..<5 { _ = try await client.call(SystemMethods.Ping.self) }
            let ids = try server.receivedLines.map { try #require(try jsonObject($0)["id"] as? Int) }
            #expect(ids.count == 5)
            #expect(Set(ids).count == 5)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func notifySendsNoIDAndWaitsForNoReply() async throws {
        try await withFakeServer(handler: { _ in [] }) { client, server in
            try await client.notify("update", params: [1, 2, 3])
            let lines = try await server.waitForLines { !$0.isEmpty }
            let object = try jsonObject(try #require(lines.first))
            #expect(object["id"] == nil)
            #expect(object["method"] as? String == "update")
            #expect(object["params"] as? [Int] == [1, 2, 3])
        }
    }

    // MARK: - Disconnection

    @Test(.timeLimit(.minutes(10)))
    func serverClosingFailsPendingCallsPromptly() async throws {
        let seen = Locked(0)
        try await withFakeServer(handler: { _ in
            let count = seen.withLock { (value: inout Int) -> Int in
                value += 1
                return value
            }
            return count == 3 ? [.close] : []
        }) { client, _ in
            let start = ContinuousClock.now
            let outcomes = await withTaskGroup(of: (any Error)?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do {
                            _ = try await client.call(SystemMethods.Ping.self)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                var outcomes: [(any Error)?] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(ContinuousClock.now - start < promptly)
            #expect(outcomes.count == 3)
            for outcome in outcomes {
                #expect(outcome as? GuildClientError == .disconnected, "\(String(describing: outcome))")
            }

            // Later calls fail at once, and the notification stream has ended.
            let later = await #expect(throws: GuildClientError.self) {
                _ = try await client.call(SystemMethods.Ping.self)
            }
            #expect(later == .disconnected)
            var iterator = client.notifications.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            #expect(!client.isConnected)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func closingTheClientFailsPendingCalls() async throws {
        try await withFakeServer(handler: { _ in [] }) { client, server in
            async let pending: String = client.call(SystemMethods.Ping.self)
            _ = try await server.waitForLines { !$0.isEmpty }
            await client.close()
            do {
                _ = try await pending
                Issue.record("the call should have failed")
            } catch {
                #expect(error as? GuildClientError == .disconnected)
            }
            #expect(!client.isConnected)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func connectingToAMissingPathThrowsConnectFailed() async throws {
        let path = "/tmp/gct-missing-\(UInt32.random(in: .min ... .max)).sock"
        let error = await #expect(throws: GuildClientError.self) {
            _ = try await GuildClient.connect(path: path)
        }
        guard case .connectFailed(let failedPath, let reason) = error else {
            Issue.record("expected connectFailed, got \(String(describing: error))")
            return
        }
        #expect(failedPath == path)
        #expect(!reason.isEmpty)
        #expect(error?.description.contains(path) == true)
    }

    @Test(.timeLimit(.minutes(10)))
    func clientWorksWithAnExplicitEventLoopGroup() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try FakeServer(handler: pingHandler)
        defer { server.stop() }
        let client = try await GuildClient.connect(path: server.path, group: group)
        let pong = try await client.call(SystemMethods.Ping.self)
        #expect(pong == "pong")
        await client.close()
        try await group.shutdownGracefully()
        #expect(server.connectionCount == 1)
    }

    // MARK: - Socket path

    @Test(arguments: [
        (["GUILD_SOCKET": "/custom/g.sock", "XDG_RUNTIME_DIR": "/run/user/5"], "/custom/g.sock"),
        (["GUILD_SOCKET": "/custom/g.sock"], "/custom/g.sock"),
        (["XDG_RUNTIME_DIR": "/run/user/5"], "/run/user/5/guild/guild.sock"),
        (["GUILD_SOCKET": "", "XDG_RUNTIME_DIR": "/xdg"], "/xdg/guild/guild.sock"),
    ])
    func defaultSocketPathHonoursTheEnvironment(environment: [String: String], expected: String) {
        #expect(GuildClient.defaultSocketPath(environment: environment) == expected)
    }

    @Test
    func defaultSocketPathFallsBackByUser() {
        let uid = getuid()
        let expected = uid == 0 ? "/run/guild/guild.sock" : "/run/user/\(uid)/guild/guild.sock"
        #expect(GuildClient.defaultSocketPath(environment: [:]) == expected)
        #expect(GuildClient.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": ""]) == expected)
    }

    @Test
    func clientErrorsDescribeThemselves() {
        #expect(GuildClientError.disconnected.description == "the connection to guildd was closed")
        #expect(GuildClientError.invalidResponse("x").description.contains("x"))
        #expect(GuildClientError.connectFailed(path: "/p", reason: "r").description == "cannot connect to /p: r")
    }
}
