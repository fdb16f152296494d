import Foundation
import GuildClient
import GuildProtocol
import Testing

private struct Event: Decodable, Equatable {
    var seq: Int
}

struct NotificationTests {
    @Test(.timeLimit(.minutes(10)))
    func pushedNotificationArrivesWithMethodAndDecodableParams() async throws {
        try await withFakeServer(
            onConnect: { [.line(#"{"jsonrpc":"2.0","method":"events.event","params":{"seq":1}}"#)] },
            handler: { _ in [] }
        ) { client, _ in
            var iterator = client.notifications.makeAsyncIterator()
            let notification = try #require(await iterator.next())
            #expect(notification.method == "events.event")
            #expect(try notification.decodeParams(as: Event.self) == Event(seq: 1))
            #expect(notification.params.map { String(decoding: $0, as: UTF8.self) } == #"{"seq":1}"#)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func notificationsPushedLaterArriveInOrder() async throws {
        try await withFakeServer(handler: pingHandler) { client, server in
            // Make sure the connection is up before pushing.
            let pong = try await client.call(SystemMethods.Ping.self)
            #expect(pong == "pong")
            for seq in 1...5 {
                #expect(server.push(#"{"jsonrpc":"2.0","method":"events.event","params":{"seq":\#(seq)}}"#))
            }
            var iterator = client.notifications.makeAsyncIterator()
            var received: [Int] = []
            for _ in 1...5 {
                let notification = try #require(await iterator.next())
                received.append(try notification.decodeParams(as: Event.self).seq)
            }
            #expect(received == [1, 2, 3, 4, 5])
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func notificationsInterleavedWithRepliesAreDeliveredSeparately() async throws {
        try await withFakeServer(handler: { request in
            guard let id = request.idJSON else { return [] }
            return [
                .line(#"{"jsonrpc":"2.0","method":"events.event","params":{"seq":7}}"#),
                .line("[" + FakeServer.result(id: id, #""pong""#) + #",{"jsonrpc":"2.0","method":"events.event","params":{"seq":8}}]"#),
            ]
        }) { client, _ in
            let pong = try await client.call(SystemMethods.Ping.self)
            #expect(pong == "pong")
            var iterator = client.notifications.makeAsyncIterator()
            let first = try #require(await iterator.next())
            let second = try #require(await iterator.next())
            #expect(try first.decodeParams(as: Event.self) == Event(seq: 7))
            #expect(try second.decodeParams(as: Event.self) == Event(seq: 8))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func notificationWithoutParamsCannotBeDecoded() async throws {
        try await withFakeServer(
            onConnect: { [.line(#"{"jsonrpc":"2.0","method":"events.ping"}"#)] },
            handler: { _ in [] }
        ) { client, _ in
            var iterator = client.notifications.makeAsyncIterator()
            let notification = try #require(await iterator.next())
            #expect(notification.method == "events.ping")
            #expect(notification.params == nil)
            let error = #expect(throws: GuildClientError.self) {
                _ = try notification.decodeParams(as: Event.self)
            }
            guard case .invalidResponse = error else {
                Issue.record("expected invalidResponse, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func streamEndsWhenTheServerCloses() async throws {
        try await withFakeServer(
            onConnect: { [.line(#"{"jsonrpc":"2.0","method":"events.event","params":{"seq":1}}"#), .close] },
            handler: { _ in [] }
        ) { client, _ in
            var iterator = client.notifications.makeAsyncIterator()
            let first = try #require(await iterator.next())
            #expect(try first.decodeParams(as: Event.self) == Event(seq: 1))
            #expect(await iterator.next() == nil)
        }
    }

    @Test
    func serverNotificationDecodesGivenParams() throws {
        let notification = ServerNotification(method: "m", params: Array(#"{"seq":42}"#.utf8))
        #expect(try notification.decodeParams(as: Event.self) == Event(seq: 42))
        #expect(throws: (any Error).self) { try notification.decodeParams(as: [Int].self) }
    }
}
