import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import Testing

/// Answers every entry of a batch line that has an id: `"r:<method>"`, or an error for method `fail`.
/// The replies are sent in `order` (a permutation of the answered entries), as one array or as separate lines.
private func batchHandler(order: @escaping @Sendable (Int) -> [Int], asArray: Bool = true) -> FakeServer.Handler {
    { request in
        guard let entries = request.batch else {
            guard request.method == "system.ping", let id = request.idJSON else { return [] }
            return [.line(FakeServer.result(id: id, #""pong""#))]
        }
        let replies: [String] = entries.compactMap { entry in
            guard let id = FakeServer.idJSON(of: entry), let method = entry["method"] as? String else { return nil }
            if method == "fail" {
                return FakeServer.error(id: id, code: 40401, message: "No such user", reason: "USER_NOT_FOUND", field: "userID")
            }
            return FakeServer.result(id: id, #""r:\#(method)""#)
        }
        let shuffled = order(replies.count).map { replies[$0] }
        if asArray {
            return [.line("[" + shuffled.joined(separator: ",") + "]")]
        }
        return shuffled.map { .line($0) }
    }
}

/// A fixed shuffle: odd positions backwards, then even positions backwards.
@Sendable private func scramble(_ count: Int) -> [Int] {
    let indices = Array(0..<count)
    return indices.filter { $0 % 2 == 1 }.reversed() + indices.filter { $0 % 2 == 0 }.reversed()
}

private func text(_ reply: Result<[UInt8], RPCError>?) -> String? {
    guard case .some(.success(let bytes)) = reply else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

struct BatchTests {
    @Test(.timeLimit(.minutes(10)))
    func resultsComeBackInInputOrderThoughRepliesAreShuffled() async throws {
        try await withFakeServer(handler: batchHandler(order: scramble)) { client, server in
            let results = try await client.batch([
                try .call("a", params: ["x": 1]),
                try .notification("note", params: [7]),
                try .call("b"),
                try .call("fail", params: ["userID": "nobody"]),
                try .call(SystemMethods.Ping.self, NoParams()),
                try .call("c"),
            ])
            #expect(results.count == 6)
            #expect(text(results[0]) == #""r:a""#)
            #expect(results[1] == nil)
            #expect(text(results[2]) == #""r:b""#)
            guard case .some(.failure(let error)) = results[3] else {
                Issue.record("entry 3 should be an error, got \(String(describing: results[3]))")
                return
            }
            #expect(error.code == .userNotFound)
            #expect(error.reason == "USER_NOT_FOUND")
            #expect(error.field == "userID")
            #expect(text(results[4]) == #""r:system.ping""#)
            #expect(text(results[5]) == #""r:c""#)

            // The batch went out as one line: an array in input order, the notification without an id.
            let lines = server.receivedLines
            #expect(lines.count == 1)
            let sent = try #require(try JSONSerialization.jsonObject(with: Data(lines[0])) as? [[String: Any]])
            #expect(sent.map { $0["method"] as? String } == ["a", "note", "b", "fail", "system.ping", "c"])
            #expect(sent[1]["id"] == nil)
            #expect(sent.enumerated().filter { $0.offset != 1 }.allSatisfy { $0.element["id"] as? Int != nil })
            #expect((sent[4]["params"] as? [String: Any])?.isEmpty == true)
            #expect(sent.allSatisfy { $0["jsonrpc"] as? String == "2.0" })
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func repliesSentAsSeparateLinesAreCollectedToo() async throws {
        try await withFakeServer(handler: batchHandler(order: { Array((0..<$0).reversed()) }, asArray: false)) { client, _ in
            let results = try await client.batch([try .call("x"), try .call("y"), try .call("z")])
            #expect(results.map(text) == [#""r:x""#, #""r:y""#, #""r:z""#])
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func batchOfOnlyNotificationsReturnsAllNilWithoutWaiting() async throws {
        // The server never answers anything.
        try await withFakeServer(handler: { _ in [] }) { client, server in
            let start = ContinuousClock.now
            let results = try await client.batch([
                try .notification("notify_sum", params: [1, 2, 4]),
                try .notification("notify_hello", params: [7]),
            ])
            #expect(ContinuousClock.now - start < promptly)
            #expect(results.count == 2)
            #expect(results.allSatisfy { $0 == nil })
            let lines = try await server.waitForLines { !$0.isEmpty }
            let line = try #require(lines.first)
            let sent = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [[String: Any]])
            #expect(sent.count == 2)
            #expect(sent.allSatisfy { $0["id"] == nil })
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func wholeBatchRefusalIsThrownAndTheConnectionStaysUsable() async throws {
        let refusal = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x","data":{"reason":"BATCH_TOO_LARGE"}}}"#
        try await withFakeServer(handler: { request in
            if let entries = request.batch {
                // The refusal, then a late reply for one of the refused ids, which must be ignored.
                let late = FakeServer.idJSON(of: entries[0]).map { FakeServer.result(id: $0, "1") }
                return [.line(refusal)] + (late.map { [.line($0)] } ?? [])
            }
            return pingHandler(request)
        }) { client, _ in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.batch([try .call("a"), try .call("b"), try .notification("c")])
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.code.rawValue == -32600)
            #expect(error?.message == "x")
            #expect(error?.reason == "BATCH_TOO_LARGE")
            let pong = try await client.call(SystemMethods.Ping.self)
            #expect(pong == "pong")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func serverClosingFailsAPendingBatch() async throws {
        try await withFakeServer(handler: { request in
            request.batch != nil ? [.delay(.milliseconds(20)), .close] : []
        }) { client, _ in
            let start = ContinuousClock.now
            let error = await #expect(throws: GuildClientError.self) {
                _ = try await client.batch([try .call("a"), try .call("b")])
            }
            #expect(error == .disconnected)
            #expect(ContinuousClock.now - start < promptly)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func partiallyAnsweredBatchFailsWhenTheServerCloses() async throws {
        try await withFakeServer(handler: { request in
            guard let entries = request.batch, let id = FakeServer.idJSON(of: entries[0]) else { return [] }
            return [.line(FakeServer.result(id: id, "true")), .close]
        }) { client, _ in
            let error = await #expect(throws: GuildClientError.self) {
                _ = try await client.batch([try .call("a"), try .call("b")])
            }
            #expect(error == .disconnected)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func concurrentBatchesAreKeptApart() async throws {
        try await withFakeServer(handler: batchHandler(order: scramble)) { client, _ in
            let firstEntries = [try BatchEntry.call("one"), try .call("two")]
            let secondEntries = [try BatchEntry.call("three"), try .notification("n"), try .call("four")]
            async let first = client.batch(firstEntries)
            async let second = client.batch(secondEntries)
            let (a, b) = try await (first, second)
            #expect(a.map(text) == [#""r:one""#, #""r:two""#])
            #expect(b.map(text) == [#""r:three""#, nil, #""r:four""#])
            #expect(b[1] == nil)
        }
    }

    /// A refusal (`id: null`) must fail the batch it refuses. A batch that already got some of its replies was
    /// accepted by the server, so it is not the one refused, even if it is older.
    @Test(.timeLimit(.minutes(10)))
    func refusalFailsTheRefusedBatchNotAnOlderPartlyAnsweredOne() async {
        await #expect(throws: Never.self) { try await self.refusalScenario() }
    }

    private func refusalScenario() async throws {
        let refusal = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x","data":{"reason":"BATCH_TOO_LARGE"}}}"#
        let heldBack = Locked<String?>(nil)
        try await withFakeServer(handler: { request in
            guard let entries = request.batch else { return [] }
            let ids = entries.compactMap { FakeServer.idJSON(of: $0) }
            if entries.first?["method"] as? String == "a1" {
                // Answer the first entry now, the second once the next batch has been refused.
                heldBack.withLock { $0 = ids[1] }
                return [.line(FakeServer.result(id: ids[0], #""a1""#))]
            }
            let late = heldBack.withLock { $0 }.map { FakeServer.result(id: $0, #""a2""#) }
            return [.line(refusal)] + (late.map { [.line($0)] } ?? [])
        }) { client, server in
            let first = Task { try await client.batch([try .call("a1"), try .call("a2")]) }
            _ = try await server.waitForLines { !$0.isEmpty }
            try await Task.sleep(for: .milliseconds(50))  // let the first reply arrive
            let second = Task { try await client.batch([try .call("b1"), try .call("b2")]) }

            // Whatever happens, do not wait for ever: closing the client fails anything still pending.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(3))
                await client.close()
            }
            defer { watchdog.cancel() }

            let firstResult = await first.result
            let secondResult = await second.result
            switch firstResult {
            case .success(let replies):
                #expect(replies.map { $0.flatMap { try? $0.get() }.map { String(decoding: $0, as: UTF8.self) } } == [#""a1""#, #""a2""#])
            case .failure(let error):
                Issue.record("the accepted, partly answered batch failed with \(error)")
            }
            switch secondResult {
            case .success(let replies):
                Issue.record("the refused batch succeeded: \(replies)")
            case .failure(let error):
                #expect((error as? RPCError)?.reason == "BATCH_TOO_LARGE", "the refused batch failed with \(error)")
            }
        }
    }
}
