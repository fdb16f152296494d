import Foundation
import GRDB
import GuildClient
import GuildCore
import GuildProtocol
import GuildServer
import GuildTestSupport
import Testing

@testable import GuildStore

/// Topics: subscriptions filter by them, unknown areas are refused, and the log carries any registered area.
@Suite(.timeLimit(.minutes(10)))
struct EventTopicTests {
    /// A test area: a ping to one user on topic `test:<id>`, seen by that user alone (and admins).
    struct Ping: SQLiteLoggedEvent {
        var id: String
        var to: String
        var time: Int64 = 1
        var topic: EventTopic { EventTopic(area: "test", id: self.id) }
        var kindName: String { "ping" }
        /// The recipient: the area's replay rule reads it back.
        var audienceTag: String { self.to }
        var routing: EventRouting { EventRouting(addressees: [self.to]) }
        /// Recorded in the tag itself, which `PingStore`'s condition reads.
        var replayAudience: ReplayAudience { ReplayAudience() }
        func encodeBody() throws -> [UInt8] { Array(#"{"kind":"ping","to":"\#(self.to)"}"#.utf8) }
        func recordAudience(seq: Int64, in db: Database) throws {}
    }

    struct PingAudience: EventAudience {
        var area: String { "test" }
        var kinds: [String] { ["ping"] }
        var fields: [EventField] { [] }
        var replay: ReplayRule { ReplayRule(readers: .init(table: "test_reader", column: "userID")) }
    }

    struct PingStore: SQLiteEventArea {
        var area: String { "test" }
        var replayCondition: String { "e.audience = :user" }
        func following(userID: String, in db: Database) throws -> [EventTopic] { [] }
        func pruned(in db: Database) throws {}
    }

    /// A raw connection: subscription replies and the notifications that follow, as JSON objects.
    final class Raw {
        let connection: RawConnection
        var nextID = 1
        var notifications: [[String: Any]] = []

        init(_ socket: String, token: String?) async throws {
            self.connection = try RawConnection(path: socket)
            if let token { _ = try await self.call("session.authenticate", #"{"accessToken":"\#(token)"}"#) }
        }

        /// Sends a request and returns its reply; notifications read meanwhile are kept.
        func call(_ method: String, _ params: String) async throws -> [String: Any] {
            let id = self.nextID
            self.nextID += 1
            await self.connection.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"# + "\n")
            while let message = await self.connection.readJSON() as? [String: Any] {
                if message["id"] as? Int == id { return message }
                self.notifications.append(message)
            }
            throw NoReply(method: method)
        }

        /// The `events.event` lines received within `timeout` after those kept, as (subscription, event).
        func events(timeout: Double = 0.5) async -> [(String, [String: Any])] {
            while let message = await self.connection.readJSON(timeout: timeout) as? [String: Any] { self.notifications.append(message) }
            defer { self.notifications = [] }
            return self.notifications.compactMap { message in
                guard message["method"] as? String == "events.event", let params = message["params"] as? [String: Any],
                    let subscription = params["subscription"] as? String, let event = params["event"] as? [String: Any]
                else { return nil }
                return (subscription, event)
            }
        }
    }

    struct NoReply: Error {
        let method: String
    }

    static func subscription(_ reply: [String: Any]) -> String? { (reply["result"] as? [String: Any])?["subscription"] as? String }

    @Test func subscriptionsFilterByTopic() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await EventTests.Member.join(socket, "alice")
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "A", groupID: "a"))
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "B", groupID: "b"))
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "C", groupID: "c"))
            let raw = try await Raw(socket, token: alice.token)
            let onlyB = try #require(Self.subscription(try await raw.call("events.subscribe", #"{"topics":["group:b"]}"#)))
            let bOrC = try #require(Self.subscription(try await raw.call("events.subscribe", #"{"topics":["group:b"],"groupIDs":["c"],"since":0}"#)))
            for groupID in ["a", "b", "c"] {
                _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: groupID, name: "\(groupID)2"))
            }
            let events = await raw.events()
            #expect(events.filter { $0.0 == onlyB }.map { $0.1["groupID"] as? String } == ["b"])
            #expect(events.filter { $0.0 == bOrC }.map { $0.1["groupID"] as? String } == ["b", "c", "b", "c"])
        }
    }

    @Test func unknownTopicAreasAreRefused() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await EventTests.Member.join(socket, "alice")
            for topics in [["nope:x"], ["g1"], ["group:"], ["group:g", "Ü:x"]] {
                do {
                    _ = try await alice.client.call(EventMethods.Subscribe.self, .init(topics: topics))
                    Issue.record("topics \(topics) were accepted")
                } catch let error as RPCError {
                    #expect(error.code == .invalidParams)
                    #expect(error.reason == "INVALID_INPUT_DATA")
                    #expect(error.field == "topics")
                }
            }
        }
    }

    @Test func theLogCarriesAnyRegisteredArea() async throws {
        EventAreas.register(PingAudience())
        try await TestDaemon.run { socket, _, store in
            store.eventAreas.register(PingStore())
            let alice = try await EventTests.Member.join(socket, "alice")
            let bob = try await EventTests.Member.join(socket, "bob")
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "G", groupID: "g", members: [.init(userID: bob.id)]))
            let aliceRaw = try await Raw(socket, token: alice.token)
            let bobRaw = try await Raw(socket, token: bob.token)
            let admin = try await Raw(socket, token: nil)  // the test runs as an admin peer
            let alicePings = try #require(Self.subscription(try await aliceRaw.call("events.subscribe", #"{"topics":["test:t1"]}"#)))
            let bobAll = try #require(Self.subscription(try await bobRaw.call("events.subscribe", #"{}"#)))
            let adminPings = try #require(Self.subscription(try await admin.call("events.subscribe", #"{"all":true,"kinds":["ping"]}"#)))

            let seq = try await store.write { tx in try tx.append(Ping(id: "t1", to: alice.id)) }
            _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "g", name: "G2"))
            let toAlice = await aliceRaw.events()
            #expect(toAlice.map(\.0) == [alicePings])
            #expect(toAlice.first?.1["kind"] as? String == "ping")
            #expect((toAlice.first?.1["seq"] as? NSNumber)?.int64Value == seq)
            let toBob = await bobRaw.events()
            #expect(toBob.map(\.0) == [bobAll])
            #expect(toBob.map { $0.1["kind"] as? String } == ["groupInfoChanged"])
            let toAdmin = await admin.events()
            #expect(toAdmin.map(\.0) == [adminPings])
            #expect(toAdmin.map { $0.1["to"] as? String } == [alice.id])

            // Replay asks the area's store rule: alice's ping for alice, not for bob.
            let alicePast = try #require(Self.subscription(try await aliceRaw.call("events.subscribe", #"{"since":0}"#)))
            let bobPast = try #require(Self.subscription(try await bobRaw.call("events.subscribe", #"{"since":0}"#)))
            #expect(
                await aliceRaw.events().filter { $0.0 == alicePast }.map { $0.1["kind"] as? String } == ["groupCreated", "ping", "groupInfoChanged"]
            )
            #expect(await bobRaw.events().filter { $0.0 == bobPast }.map { $0.1["kind"] as? String } == ["groupCreated", "groupInfoChanged"])
        }
    }
}
