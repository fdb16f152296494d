import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// Strings holding U+0000 and other control characters come back from the real daemon exactly as they were
/// acknowledged: user profiles, custom fields, group names, profiles and attributes (before the fix: `"vis\u0000hidden"`
/// came back as `"vis"`).
@Suite(.endToEnd)
struct TextRoundTripTests {
    static let text = "vis\u{0}hidden\u{1}\u{1F}\u{7F}\t\n\"\\ é"

    static func first(_ value: JSONValue?) -> JSONValue? {
        if case .array(let items)? = value { return items.first }
        return nil
    }

    @Test func controlCharactersRoundTripThroughTheDaemon() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let text = Self.text
        let client = try await GuildClient.connect(path: scratch.socket)
        _ = try await client.call("user.registerPseudo", params: ["displayName": "a\u{0}b"])
        let updated = try await client.call(
            "user.update",
            params: ["displayName": .string(text), "fields": ["k\u{0}": .string(text), "list": [.string(text)]]]
        )
        #expect(updated["displayName"]?.stringValue == text)

        let user = try #require(updated["userID"]?.stringValue)
        let read = try await client.call("user.get", params: ["userID": .string(user)])
        #expect(read["displayName"]?.stringValue == text)
        #expect(read["fields"]?["k\u{0}"]?.stringValue == text)
        #expect(read["fields"]?["list"] == [.string(text)])

        // Group name, introduction, notification, custom fields; the group list; AVChatRoom attributes.
        let name = "n\u{0}" + text
        _ = try await client.call("group.create", params: ["groupID": "nul", "name": .string(name), "type": "Basic"])
        _ = try await client.call(
            "group.setInfo",
            params: ["groupID": "nul", "introduction": .string(text), "notification": .string("x" + text), "custom": ["c": .string(text)]]
        )
        let info = try await client.call("group.getInfo", params: ["groupIDs": ["nul"]])
        let profile = Self.first(info["groups"])
        #expect(profile?["name"]?.stringValue == name)
        #expect(profile?["introduction"]?.stringValue == text)
        #expect(profile?["notification"]?.stringValue == "x" + text)
        #expect(profile?["custom"]?["c"]?.stringValue == text)
        // A group id with a NUL names no group (GRDB's C-string binding used to find "nul" for it).
        let prefixed = try await client.call("group.getInfo", params: ["groupIDs": ["nul\u{0}zzz"]])
        #expect(prefixed["notFound"] == ["nul\u{0}zzz"])
        #expect(prefixed["groups"] == [])
        for _ in 0..<2 {  // from the row, then from the summary cache
            let list = try await client.call("user.memberOfGroups", params: [:])
            #expect(Self.first(list["groups"])?["name"]?.stringValue == name)
        }

        _ = try await client.call("group.create", params: ["groupID": "room", "name": "room", "type": "AVChatRoom"])
        _ = try await client.call("group.initAttributes", params: ["groupID": "room", "attributes": ["a": .string(text), "k\u{0}": "v"]])
        let attributes = try await client.call("group.getAttributes", params: ["groupID": "room"])
        #expect(attributes["attributes"]?["a"]?.stringValue == text)
        #expect(attributes["attributes"]?["k\u{0}"]?.stringValue == "v")

        // And after a restart, from the file alone.
        await client.close()
        daemon.signal(SIGTERM)
        _ = await daemon.wait()
        let restarted = try await RealDaemon.start(scratch)
        defer { restarted.terminate() }
        let again = try await GuildClient.connect(path: scratch.socket)
        defer { Task { await again.close() } }
        _ = try await again.call("user.registerPseudo", params: [:])
        #expect(try await again.call("user.get", params: ["userID": .string(user)])["displayName"]?.stringValue == text)
        let after = try await again.call("group.getInfo", params: ["groupIDs": ["nul"]])
        #expect(Self.first(after["groups"])?["name"]?.stringValue == name)
    }
}
