import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// The objects area through the socket: GuildClient's typed calls and object events, and real malformed
/// bytes for every kind of bad input, each a clear error that leaves nothing written and the connection
/// serving.
@Suite(.endToEnd)
struct ObjectClientTests {
    @Test func typedCallsAndBucketEventsThroughGuildClient() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await TestUser.registerPseudo(socket, displayName: "alice")
            let watcher = try await GuildClient.connect(path: socket)
            let subscription = try await watcher.subscribe(buckets: [.init(scope: "app", bucket: "people")], all: true)
            var events = subscription.events.makeAsyncIterator()

            let created = try await alice.client.createObject(scope: "app", bucket: "people", body: ["name": "Alice", "age": 31])
            #expect(created.version == "1")
            let object = try await alice.client.object(scope: "app", bucket: "people", objectID: created.objectID)
            #expect(object["name"] == "Alice" && object["_owner"] == .string(alice.id) && object["_version"] == "1")
            let patched = try await alice.client.patchObject(
                scope: "app",
                bucket: "people",
                objectID: created.objectID,
                body: ["age": 32],
                ifVersion: 1
            )
            #expect(patched["age"] == 32 && patched["name"] == "Alice" && patched["_version"] == "2")
            do {
                try await alice.client.replaceObject(scope: "app", bucket: "people", objectID: created.objectID, body: ["x": 1], ifVersion: 1)
                Issue.record("a stale replace went through")
            } catch let error as RPCError {
                #expect(error.reason == "OBJECT_VERSION_IS_STALE")
            }
            let page = try await alice.client.queryObjects(
                scope: "app",
                bucket: "people",
                clause: ["type": "range", "field": "age", "lowerLimit": 30]
            )
            #expect(page.results.count == 1 && page.nextPaginationKey == nil)
            #expect(try await alice.client.buckets(scope: "app").map(\.objectCount) == [1])
            let granted = try await alice.client.grant(
                [.init(action: "READ_EXISTING_OBJECT", subject: "UserID:ANONYMOUS_USER")],
                scope: "app",
                bucket: "people",
                objectID: created.objectID,
                ensure: true
            )
            #expect(granted.failed.isEmpty)
            try await alice.client.deleteObject(scope: "app", bucket: "people", objectID: created.objectID)

            var kinds: [String] = []
            while kinds.count < 4, let event = try await events.next() {
                kinds.append(event.kind)
                #expect(event.scope == "app" && event.bucket == "people" && event.objectID == created.objectID && event.groupID == nil)
                if event.kind == "objectCreated" { #expect(event.object?["name"] == "Alice") }
            }
            #expect(kinds == ["objectCreated", "objectUpdated", "aclChanged", "objectDeleted"])
            await watcher.close()
            await alice.client.close()
        }
    }

    static let badCalls: [(name: String, line: String, reason: String, field: String?)] = [
        ("body is an array", #"{"method":"object.create","params":{"scope":"app","bucket":"bb","body":[1,2]}}"#, "INVALID_INPUT_DATA", "body"),
        ("body is a string", #"{"method":"object.create","params":{"scope":"app","bucket":"bb","body":"x"}}"#, "INVALID_INPUT_DATA", "body"),
        (
            "body over the limit",
            #"{"method":"object.create","params":{"scope":"app","bucket":"bb","body":{"x":""# + String(repeating: "y", count: 70_000) + #""}}}"#,
            "OBJECT_TOO_LARGE", "body"
        ),
        (
            "body nested too deep",
            #"{"method":"object.create","params":{"scope":"app","bucket":"bb","body":"# + String(repeating: #"{"a":"#, count: 40) + "1"
                + String(repeating: "}", count: 40) + "}}",
            "INVALID_INPUT_DATA", "body"
        ),
        ("bucket name", #"{"method":"object.create","params":{"scope":"app","bucket":"_x","body":{}}}"#, "INVALID_INPUT_DATA", "bucket"),
        ("scope", #"{"method":"object.create","params":{"scope":"planet:1","bucket":"bb","body":{}}}"#, "INVALID_INPUT_DATA", "scope"),
        (
            "unknown action", #"{"method":"acl.grant","params":{"scope":"app","bucket":"bb","entries":[{"action":"FLY","subject":"UserID:x"}]}}"#,
            "INVALID_INPUT_DATA", "entries[0].action"
        ),
        (
            "malformed subject",
            #"{"method":"acl.grant","params":{"scope":"app","bucket":"bb","entries":[{"action":"READ_OBJECTS_IN_BUCKET","subject":"root"}]}}"#,
            "INVALID_INPUT_DATA", "entries[0].subject"
        ),
        (
            "clause too deep",
            #"{"method":"object.query","params":{"scope":"app","bucket":"bb","clause":"# + String(repeating: #"{"type":"not","clause":"#, count: 20)
                + #"{"type":"all"}"# + String(repeating: "}", count: 20) + "}}",
            "INVALID_INPUT_DATA", "clause"
        ),
        (
            "huge in list",
            #"{"method":"object.query","params":{"scope":"app","bucket":"bb","clause":{"type":"in","field":"a","values":["#
                + (0..<500).map(String.init).joined(separator: ",") + "]}}}",
            "INVALID_INPUT_DATA", "clause"
        ),
        (
            "regular expression",
            #"{"method":"object.query","params":{"scope":"app","bucket":"bb","clause":{"type":"regex","field":"a","pattern":".*"}}}"#,
            "QUERY_NOT_SUPPORTED", "clause"
        ),
        (
            "paging key", #"{"method":"object.query","params":{"scope":"app","bucket":"bb","paginationKey":"%%%"}}"#, "INVALID_INPUT_DATA",
            "paginationKey"
        ),
        (
            "version", #"{"method":"object.delete","params":{"scope":"app","bucket":"bb","objectID":"o1","ifVersion":"v2"}}"#, "INVALID_PARAMS",
            "ifVersion"
        ),
    ]

    @Test func malformedObjectCallsGetClearErrorsAndWriteNothing() async throws {
        try await TestDaemon.run { socket, _ in
            let connection = try RawConnection(path: socket)
            let other = try RawConnection(path: socket)
            for (index, bad) in Self.badCalls.enumerated() {
                let line = #"{"jsonrpc":"2.0","id":\#(index),"# + bad.line.dropFirst()
                #expect(await connection.send(line + "\n"))
                let reply = try #require(await connection.readJSON() as? [String: Any], "\(bad.name)")
                #expect(reply["id"] as? Int == index, "\(bad.name)")
                #expect(reply.errorReason == bad.reason, "\(bad.name): \(reply)")
                if let field = bad.field { #expect(reply.errorField == field, "\(bad.name): \(reply)") }
                #expect(await other.pings(), "another connection is disturbed after \(bad.name)")
            }
            #expect(await connection.pings())
            #expect(await connection.send(#"{"jsonrpc":"2.0","id":"l","method":"bucket.list","params":{"scope":"app"}}"# + "\n"))
            let list = try #require(await connection.readJSON() as? [String: Any])
            #expect((list["result"] as? [String: Any])?["buckets"] as? [Any] != nil)
            #expect(((list["result"] as? [String: Any])?["buckets"] as? [Any])?.isEmpty == true, "nothing was written")
        }
    }
}
