import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import Testing

/// `GuildClient.calls`: many calls sent together, one line each, answered in any order.
struct PipelinedCallsTests {
    /// Holds every `user.get` until `count` have arrived, then answers them all, last first: a profile named
    /// after the requested userID, or USER_NOT_FOUND for userIDs that start with "no".
    private static func heldBackUserGets(_ count: Int, held: Locked<[(id: String, userID: String)]>) -> FakeServer.Handler {
        { request in
            guard request.method == "user.get", let id = request.idJSON,
                let userID = (request.params as? [String: Any])?["userID"] as? String
            else { return [] }
            let all = held.withLock { waiting -> [(id: String, userID: String)]? in
                waiting.append((id, userID))
                return waiting.count == count ? waiting : nil
            }
            guard let all else { return [] }
            return all.reversed().map { call in
                if call.userID.hasPrefix("no") {
                    return .line(FakeServer.error(id: call.id, code: 40401, message: "No such user", reason: "USER_NOT_FOUND", field: "userID"))
                }
                return .line(
                    FakeServer.result(id: call.id, #"{"userID":"\#(call.userID)","displayName":"\#(call.userID)!","isPseudo":false,"createdAt":1}"#)
                )
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func eachCallGoesOnItsOwnLineAndOutcomesComeBackInInputOrder() async throws {
        let held = Locked<[(id: String, userID: String)]>([])
        let userIDs = ["u1", "no-2", "u3", "u4", "no-5", "u6"]
        try await withFakeServer(handler: Self.heldBackUserGets(userIDs.count, held: held)) { client, server in
            let outcomes = try await client.calls(UserMethods.Get.self, userIDs.map { .init(userID: $0) })
            #expect(outcomes.count == userIDs.count)
            for (userID, outcome) in zip(userIDs, outcomes) {
                switch outcome {
                case .success(let profile):
                    #expect(!userID.hasPrefix("no"))
                    #expect(profile.userID == userID)
                    #expect(profile.displayName == userID + "!")
                case .failure(let error):
                    #expect(userID.hasPrefix("no"), "\(userID): \(error)")
                    #expect(error.reason == "USER_NOT_FOUND")
                    #expect(error.field == "userID")
                }
            }
            // Six request lines, each a single call with an id of its own: not a JSON-RPC batch.
            let lines = server.receivedLines
            #expect(lines.count == userIDs.count)
            let sent = try lines.map { try jsonObject($0) }
            #expect(sent.map { $0["method"] as? String } == Array(repeating: "user.get", count: userIDs.count))
            #expect(sent.map { ($0["params"] as? [String: Any])?["userID"] as? String } == userIDs)
            #expect(Set(sent.compactMap { ($0["id"] as? NSNumber)?.intValue }).count == userIDs.count)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func noParamsCallsAndAnEmptyListNeedNoBatchOfTheirOwn() async throws {
        try await withFakeServer(handler: pingHandler) { client, server in
            let pongs = try await client.calls(SystemMethods.Ping.self, count: 64)
            #expect(pongs.count == 64)
            #expect(pongs.allSatisfy { (try? $0.get()) == "pong" })
            let lines = server.receivedLines
            #expect(lines.count == 64)
            #expect(try lines.allSatisfy { try jsonObject($0)["params"] == nil })
            // Nothing to call: nothing is sent, nothing is awaited.
            #expect(try await client.calls(SystemMethods.Ping.self, count: 0).isEmpty)
            #expect(try await client.calls(UserMethods.Get.self, []).isEmpty)
            #expect(server.receivedLines.count == 64)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func callsStillWaitingFailWhenTheConnectionCloses() async throws {
        try await withFakeServer(handler: { request in
            // Answers the first call only, then hangs up.
            guard let id = request.idJSON, id == "1" else { return [] }
            return [.line(FakeServer.result(id: id, #""pong""#)), .close]
        }) { client, _ in
            let start = ContinuousClock.now
            let error = await #expect(throws: GuildClientError.self) {
                _ = try await client.calls(SystemMethods.Ping.self, count: 3)
            }
            #expect(error == .disconnected)
            #expect(ContinuousClock.now - start < promptly)
        }
    }

    /// Pipelined calls wait as one range of ids: a reply repeated for one of them, one for an id nobody is
    /// waiting for, or one for a call's id written as another JSON number (`7.0`, `7e0`) changes nothing (the
    /// calls still end only when each has its own reply), and a single call sent meanwhile gets its own reply.
    @Test(.timeLimit(.minutes(10)))
    func aRepeatedOrUnknownReplyIdLeavesPipelinedCallsAlone() async throws {
        let first = Locked<String?>(nil)
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            let isFirst = first.withLock { seen in
                if seen == nil { seen = id }
                return seen == id
            }
            guard isFirst else { return [.line(FakeServer.result(id: id, #""pong""#))] }
            // The second call's id written another way is not that call's id either.
            let next = String((Int(id) ?? 0) + 1)
            return [
                .line(FakeServer.result(id: id, #""first""#)),
                .line(FakeServer.result(id: id, #""again""#)),
                .line(FakeServer.result(id: "424242", #""stray""#)),
                .line(FakeServer.result(id: next + ".0", #""decimal""#)),
                .line(FakeServer.result(id: next + "e0", #""exponent""#)),
            ]
        }) { client, _ in
            let outcomes = try await client.calls(SystemMethods.Ping.self, count: 3)
            #expect(outcomes.map { try? $0.get() } == ["first", "pong", "pong"])
            #expect(try await client.call(SystemMethods.Ping.self) == "pong")
            let again = try await client.calls(SystemMethods.Ping.self, count: 2)
            #expect(again.map { try? $0.get() } == ["pong", "pong"])
        }
    }

    /// Holds `user.get` calls until `count` have arrived, then answers them in one write, in `order` (userIDs;
    /// a userID listed twice is answered twice, the second time with the display name "again").
    private static func answeredInOneWrite(_ count: Int, order: [String], held: Locked<[String: String]>) -> FakeServer.Handler {
        { request in
            guard let id = request.idJSON, let userID = (request.params as? [String: Any])?["userID"] as? String else { return [] }
            let all = held.withLock { ids -> [String: String]? in
                ids[userID] = id
                return ids.count == count ? ids : nil
            }
            guard let all else { return [] }
            var answered: Set<String> = []
            var bytes: [UInt8] = []
            for userID in order {
                let name = answered.insert(userID).inserted ? userID + "!" : "again"
                let profile = #"{"userID":"\#(userID)","displayName":"\#(name)","isPseudo":false,"createdAt":1}"#
                bytes += Array(FakeServer.result(id: all[userID] ?? "0", profile).utf8) + [0x0A]
            }
            return [.raw(bytes)]
        }
    }

    /// Replies of two sets of pipelined calls and of a single call, interleaved in one read, each reach their
    /// caller; a repeated reply is ignored.
    @Test(.timeLimit(.minutes(10)))
    func interleavedRepliesInOneReadReachTheirCalls() async throws {
        let order = ["a0", "b0", "s", "a1", "b2", "a0", "b1", "a2"]
        try await withFakeServer(handler: Self.answeredInOneWrite(7, order: order, held: Locked([:]))) { client, _ in
            async let a = client.calls(UserMethods.Get.self, ["a0", "a1", "a2"].map { .init(userID: $0) })
            async let b = client.calls(UserMethods.Get.self, ["b0", "b1", "b2"].map { .init(userID: $0) })
            async let single = client.call(UserMethods.Get.self, .init(userID: "s"))
            let (first, second, profile) = try await (a, b, single)
            #expect(first.map { try? $0.get().displayName } == ["a0!", "a1!", "a2!"])
            #expect(second.map { try? $0.get().displayName } == ["b0!", "b1!", "b2!"])
            #expect(profile.displayName == "s!")
        }
    }

    /// One set of pipelined calls completes in the middle of a read and the next set's replies follow in the
    /// same read; a set whose replies come in several reads, each line cut in two, still completes.
    @Test(.timeLimit(.minutes(10)))
    func pipelinedCallsCompleteMidReadAndAcrossReads() async throws {
        try await withFakeServer(handler: Self.answeredInOneWrite(4, order: ["a0", "a1", "b1", "b0"], held: Locked([:]))) { client, _ in
            async let a = client.calls(UserMethods.Get.self, ["a0", "a1"].map { .init(userID: $0) })
            async let b = client.calls(UserMethods.Get.self, ["b0", "b1"].map { .init(userID: $0) })
            let (first, second) = try await (a, b)
            #expect(first.map { try? $0.get().userID } == ["a0", "a1"])
            #expect(second.map { try? $0.get().userID } == ["b0", "b1"])
        }
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            // The reply cut in the middle of its line, the rest written after a pause: two reads.
            let line = Array(FakeServer.result(id: id, #""pong""#).utf8) + [0x0A]
            return [.raw(Array(line[..<10])), .delay(.milliseconds(20)), .raw(Array(line[10...]))]
        }) { client, _ in
            let pongs = try await client.calls(SystemMethods.Ping.self, count: 3)
            #expect(pongs.map { try? $0.get() } == ["pong", "pong", "pong"])
        }
    }

    /// A result the type's fast path cannot read goes on to the full decoder, which refuses one of the wrong type:
    /// the calls fail with `invalidResponse` naming the method.
    @Test(.timeLimit(.minutes(10)))
    func aResultOfTheWrongTypeIsRefused() async throws {
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            // A number where system.ping's string belongs, for the call whose id is even.
            return [.line(FakeServer.result(id: id, (Int(id) ?? 0) % 2 == 0 ? "42" : #""pong""#))]
        }) { client, _ in
            let error = await #expect(throws: GuildClientError.self) {
                _ = try await client.calls(SystemMethods.Ping.self, count: 2)
            }
            guard case .invalidResponse(let detail) = error else {
                Issue.record("expected invalidResponse, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("system.ping"))
        }
    }

    /// A batch refusal (`id: null`) fails the refused batch, never calls sent as lines of their own that are
    /// still waiting for their replies (those are each answered).
    @Test(.timeLimit(.minutes(10)))
    func aBatchRefusalIsNotTakenForPipelinedCalls() async throws {
        let refusal = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x","data":{"reason":"BATCH_TOO_LARGE"}}}"#
        let heldBack = Locked<[String]>([])
        try await withFakeServer(handler: { request in
            if request.batch != nil {
                // Refuse the batch, then answer the pings held back so far.
                let held = heldBack.withLock { held in
                    defer { held = [] }
                    return held
                }
                return [.line(refusal)] + held.map { .line(FakeServer.result(id: $0, #""pong""#)) }
            }
            if let id = request.idJSON { heldBack.withLock { $0.append(id) } }
            return []
        }) { client, server in
            let pings = Task { try await client.calls(SystemMethods.Ping.self, count: 2) }
            _ = try await server.waitForLines { $0.count >= 2 }
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.batch([try .call("a"), try .call("b")])
            }
            #expect(error?.reason == "BATCH_TOO_LARGE")
            let pongs = try await pings.value
            #expect(pongs.map { try? $0.get() } == ["pong", "pong"])
        }
    }
}
