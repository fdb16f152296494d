import Foundation
import GuildProtocol
import Testing

struct RequestIDTests {
    @Test(arguments: [
        (RequestID(1), "1"),
        (RequestID(-42), "-42"),
        (RequestID("abc"), #""abc""#),
        (RequestID("a\"b\\c\n"), #""a\"b\\c\n""#),
        (RequestID.null, "null"),
        (RequestID(json: "1.50"), "1.50"),
    ])
    func jsonTextIsExact(id: RequestID, json: String) {
        #expect(id.json == json)
        #expect(id.description == json)
    }

    @Test
    func intValueOnlyForIntegerText() {
        #expect(RequestID(17).intValue == 17)
        #expect(RequestID(json: "1.0").intValue == nil)
        #expect(RequestID("17").intValue == nil)
        #expect(RequestID.null.intValue == nil)
    }

    @Test
    func equalityIsByExactText() {
        #expect(RequestID(1) == RequestID(json: "1"))
        #expect(RequestID(1) != RequestID("1"))
        #expect(RequestID(json: "1.0") != RequestID(json: "1"))
        #expect(Set([RequestID(1), RequestID(json: "1"), RequestID("1")]).count == 2)
    }

    @Test
    func stringIDIsValidJSON() throws {
        let id = RequestID("tab\tnul\u{0}😀")
        let decoded = try JSONSerialization.jsonObject(with: Data(id.json.utf8), options: [.fragmentsAllowed])
        #expect(decoded as? String == "tab\tnul\u{0}😀")
    }
}
