import Foundation
import GuildJSON
import GuildProtocol
import Testing

struct JSONTextTests {
    static let strings: [String] = [
        "",
        "plain",
        "\"quoted\"",
        "back\\slash\\",
        "line\nbreak",
        "crlf\r\n",
        "tab\t",
        "nul\u{0}bell\u{7}esc\u{1B}unit\u{1F}",
        "del\u{7F}",
        "slash/",
        "é ü 漢字",
        "😀 \u{1F600}",
        "\u{2028}\u{2029}",
        "zero\u{FEFF}width",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }),
    ]

    private static func literal(_ value: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONText.appendString(value, to: &bytes)
        return bytes
    }

    @Test(arguments: strings)
    func outputHasNoRawControlCharacters(value: String) {
        let bytes = Self.literal(value)
        #expect(bytes.first == UInt8(ascii: "\""))
        #expect(bytes.last == UInt8(ascii: "\""))
        #expect(!bytes.contains(0x0A))
        #expect(!bytes.contains { $0 < 0x20 })
    }

    @Test(arguments: strings)
    func roundTripsThroughJSONSerialization(value: String) throws {
        let decoded = try JSONSerialization.jsonObject(with: Data(Self.literal(value)), options: [.fragmentsAllowed])
        #expect(decoded as? String == value)
    }

    @Test(arguments: strings)
    func roundTripsThroughTheScanner(value: String) throws {
        let bytes = Self.literal(value)
        let scanned = try scanJSON(bytes).get()
        #expect(scanned.kind == .string)
        let string = try bytes.withUnsafeBytes { buffer throws(JSONScanner.Failure) in
            try JSONScanner.string(scanned, in: buffer)
        }
        #expect(string == value)
    }

    @Test(arguments: [
        ("a\"b", #""a\"b""#),
        ("a\\b", #""a\\b""#),
        ("a\nb", #""a\nb""#),
        ("\r\t", #""\r\t""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("/é", "\"/é\""),
    ])
    func escapesAreTheShortForms(value: String, expected: String) {
        #expect(String(decoding: Self.literal(value), as: UTF8.self) == expected)
    }

    @Test
    func appendsToExistingBytes() {
        var bytes = Array("[".utf8)
        JSONText.appendString("x", to: &bytes)
        #expect(bytes == Array(#"["x""#.utf8))
    }
}

struct JSONIntegerTests {
    @Test(arguments: [Int64.min, Int64.min + 1, -1_000_000, -10, -9, -1, 0, 1, 9, 10, 99, 100, 1_795_348_702_624, Int64.max])
    func int64IsWrittenAsItsDecimal(value: Int64) {
        var bytes: [UInt8] = [UInt8(ascii: "x")]
        JSONText.appendInt64(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x" + String(value))
    }
}
