import Foundation
import GuildCore
import GuildJSON
import GuildProtocol
import Testing

/// Events are written without Foundation on the write path; what is written must be what `JSONEncoder` writes.
struct EventBodyTests {
    static let events: [GroupEvent] = [
        GroupEvent(
            kind: .groupCreated,
            groupID: "g",
            actor: "u1",
            users: ["u1", "u2"],
            changes: ["name": "Sales \"Div.\"", "type": "Basic"],
            time: 1
        ),
        GroupEvent(kind: .memberLeave, groupID: "@TGS#x/y", actor: nil, byAdmin: true, users: [], time: 1_795_348_702_624),
        GroupEvent(
            kind: .groupAttributeChanged,
            groupID: "live",
            actor: "ü",
            changes: ["attributes": ["k": "v", "a": "名前"], "version": 3, "changeTypes": [1, 2], "muted": true, "owner": .null],
            time: 7
        ),
    ]

    @Test func writesWhatJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for event in Self.events {
            let body = EventBody(event)
            var written: [UInt8] = []
            body.writeJSON(to: &written)
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: try encoder.encode(body), as: UTF8.self))
            #expect(try RPCCoding.decode(GuildEvent.self, from: EventBody.json(seq: 9, body: written)).kind == event.kind.rawValue)
        }
    }

    @Test func controlCharactersRoundTrip() throws {
        let body = EventBody(GroupEvent(kind: .newMessage, groupID: "g", actor: "u", changes: ["text": "a\u{8}\u{c}\n\t\u{1}z"], time: 1))
        var written: [UInt8] = []
        body.writeJSON(to: &written)
        let decoded = try JSONDecoder().decode(EventBody.self, from: Data(written))
        #expect(decoded.changes?["text"] == "a\u{8}\u{c}\n\t\u{1}z")
    }
}
