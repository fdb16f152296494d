import Foundation
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// A named byte sequence, so parameterized results say which input failed.

/// Scans `bytes` with a scanner of the given depth, as a `Result` so tests can inspect the failure.
func scanJSON(_ bytes: [UInt8], maximumDepth: Int = 128) -> Result<JSONScanner.Value, JSONScanner.Failure> {
    let scanner = JSONScanner(maximumDepth: maximumDepth)
    return bytes.withUnsafeBytes { buffer in
        do throws(JSONScanner.Failure) {
            return .success(try scanner.scan(buffer))
        } catch {
            return .failure(error)
        }
    }
}

struct JSONScannerTests {
    // MARK: - Acceptance

    static let validTexts: [String] = [
        "{}",
        "[]",
        "0",
        "-0",
        "-0.0",
        "1e10",
        "1E+10",
        "1.5E-3",
        "-12.75e-2",
        "123456789012345678901234567890",
        "true",
        "false",
        "null",
        #""""#,
        #""plain ascii""#,
        #""é ü ñ 漢字 😀""#,
        #""\ud83d\ude00""#,
        #""\u00e9\u20AC\u0000""#,
        #""\"\\\/\b\f\n\r\t""#,
        " \t\r\n{ \"a\" : [ 1 , 2.5 , \"x\" ] , \"b\" : { } } \n",
        #"{"nested":{"deeper":[[[{"k":null}]]]},"list":[true,false,null,-1]}"#,
        #"{"":""}"#,
        #"{"dup":1,"dup":2}"#,
        #"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"}]"#,
    ]

    @Test(arguments: validTexts)
    func validTextIsAcceptedLikeJSONSerialization(text: String) throws {
        let bytes = Array(text.utf8)
        let foundation = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        #expect(foundation != nil, "JSONSerialization should accept the fixture itself")
        let value = try scanJSON(bytes).get()
        // The top-level range covers the value without the surrounding whitespace.
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Array(bytes[value.range]) == Array(trimmed.utf8))
    }

    @Test(arguments: [
        ("{\"a\":1}", JSONScanner.Kind.object),
        (" [1] ", .array),
        ("\"s\"", .string),
        ("-1.5e3", .number),
        ("true", .bool),
        ("false", .bool),
        ("null", .null),
    ])
    func topLevelKindIsReported(text: String, kind: JSONScanner.Kind) throws {
        let value = try scanJSON(Array(text.utf8)).get()
        #expect(value.kind == kind)
    }

    // MARK: - Rejection

    static let invalidInputs: [ByteCase] = [
        ByteCase("empty input", []),
        ByteCase("whitespace only", Array(" \n\t ".utf8)),
        ByteCase(#"{"a":1"#),
        ByteCase(#"{"a":"#),
        ByteCase(#"{"a""#),
        ByteCase("{"),
        ByteCase("[1,2"),
        ByteCase("["),
        ByteCase(#""abc"#),
        ByteCase(#""abc\"#),
        ByteCase("[1,]"),
        ByteCase(#"{"a":1,}"#),
        ByteCase("[,1]"),
        ByteCase("01"),
        ByteCase("[01]"),
        ByteCase("-01"),
        ByteCase("1."),
        ByteCase(".5"),
        ByteCase("+1"),
        ByteCase("-"),
        ByteCase("1e"),
        ByteCase("1e+"),
        ByteCase("0x10"),
        ByteCase(#""\x""#),
        ByteCase(#""\u12""#),
        ByteCase(#""\u12G4""#),
        ByteCase(#""\U0041""#),
        ByteCase("raw 0x01 in a string", [0x22, 0x61, 0x01, 0x62, 0x22]),
        ByteCase("raw newline in a string", [0x22, 0x61, 0x0A, 0x62, 0x22]),
        ByteCase("raw tab in a string", [0x22, 0x61, 0x09, 0x62, 0x22]),
        ByteCase("0xFF in a string", [0x22, 0xFF, 0x22]),
        ByteCase("overlong 0xC0 0x80", [0x22, 0xC0, 0x80, 0x22]),
        ByteCase("overlong 0xE0 0x80 0x80", [0x22, 0xE0, 0x80, 0x80, 0x22]),
        ByteCase("UTF-8 surrogate 0xED 0xA0 0x80", [0x22, 0xED, 0xA0, 0x80, 0x22]),
        ByteCase("above U+10FFFF 0xF4 0x90 0x80 0x80", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]),
        ByteCase("truncated 0xE2 0x82 before the quote", [0x22, 0xE2, 0x82, 0x22]),
        ByteCase("truncated 0xE2 0x82 at the end", [0x22, 0xE2, 0x82]),
        ByteCase("lone continuation byte 0x80", [0x22, 0x80, 0x22]),
        ByteCase("bare 0xFF", [0xFF]),
        ByteCase("{a:1}"),
        ByteCase("{1:1}"),
        ByteCase("{'a':1}"),
        ByteCase("'a'"),
        ByteCase("NaN"),
        ByteCase("Infinity"),
        ByteCase("-Infinity"),
        ByteCase("tru"),
        ByteCase("nul"),
        ByteCase("True"),
        ByteCase("{} {}"),
        ByteCase("1 2"),
        ByteCase("[] x"),
        ByteCase(#"{"a" 1}"#),
        ByteCase(#"{"a":1 "b":2}"#),
        ByteCase("[1 2]"),
        ByteCase("NUL byte after value", [0x5B, 0x5D, 0x00]),
    ]

    @Test(arguments: invalidInputs)
    func malformedInputIsRejected(input: ByteCase) {
        let result = scanJSON(input.bytes)
        guard case .failure(.invalid(let offset, let reason)) = result else {
            Issue.record("expected .invalid, got \(result)")
            return
        }
        #expect(offset >= 0 && offset <= input.bytes.count)
        #expect(!reason.isEmpty)
    }

    @Test(arguments: [
        ("[1,]", 3),
        ("{} {}", 3),
        ("\"abc", 0),
        ("[1 2]", 3),
        ("01", 1),
    ])
    func failureReportsTheOffendingOffset(text: String, offset: Int) {
        guard case .failure(.invalid(let reported, _)) = scanJSON(Array(text.utf8)) else {
            Issue.record("\(text) should be rejected")
            return
        }
        #expect(reported == offset)
    }

    // MARK: - Depth

    @Test
    func nestingAtTheDefaultLimitIsAccepted() throws {
        let arrays = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        #expect(throws: Never.self) { try scanJSON(Array(arrays.utf8)).get() }
        let objects = String(repeating: #"{"a":"#, count: 127) + "{}" + String(repeating: "}", count: 127)
        let value = try scanJSON(Array(objects.utf8)).get()
        #expect(value.kind == .object)
        // Scalars do not count as a level.
        let withScalar = String(repeating: "[", count: 128) + "1" + String(repeating: "]", count: 128)
        #expect(throws: Never.self) { try scanJSON(Array(withScalar.utf8)).get() }
    }

    @Test
    func nestingOneBeyondTheDefaultLimitIsTooDeep() {
        let arrays = String(repeating: "[", count: 129) + String(repeating: "]", count: 129)
        #expect(scanJSON(Array(arrays.utf8)) == .failure(.tooDeep(limit: 128)))
        let objects = String(repeating: #"{"a":"#, count: 128) + "{}" + String(repeating: "}", count: 128)
        #expect(scanJSON(Array(objects.utf8)) == .failure(.tooDeep(limit: 128)))
    }

    @Test
    func customDepthLimitIsHonoured() {
        #expect((try? scanJSON(Array("[[[]]]".utf8), maximumDepth: 3).get()) != nil)
        #expect(scanJSON(Array("[[[[]]]]".utf8), maximumDepth: 3) == .failure(.tooDeep(limit: 3)))
        #expect(scanJSON(Array("{}".utf8), maximumDepth: 0) == .failure(.tooDeep(limit: 0)))
        #expect((try? scanJSON(Array("1".utf8), maximumDepth: 0).get()) != nil)
    }

    @Test(.timeLimit(.minutes(10)))
    func hundredThousandOpenBracketsFailFastAsTooDeep() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        // Refused at depth 129, not after walking the rest: the suite's time limit catches a scan that is not.
        #expect(scanJSON(bytes) == .failure(.tooDeep(limit: 128)))
        let balanced = bytes + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        #expect(scanJSON(balanced) == .failure(.tooDeep(limit: 128)))
    }

    // MARK: - Strings

    @Test(arguments: [
        (#""plain""#, "plain", false),
        (#""""#, "", false),
        (#""a\"b""#, "a\"b", true),
        (#""back\\slash""#, "back\\slash", true),
        (#""\/""#, "/", true),
        (#""\b\f\n\r\t""#, "\u{08}\u{0C}\n\r\t", true),
        (#""\u0041\u00e9\u20AC""#, "Aé€", true),
        (#""\u0000""#, "\u{0}", true),
        (#""\ud83d\ude00""#, "😀", true),
        (#""x\uD83D\uDE00y""#, "x😀y", true),
        ("\"é漢😀\"", "é漢😀", false),
        (#""mixé\n😀""#, "mixé\n😀", true),
    ])
    func stringsUnescapeToTheExpectedSwiftString(json: String, expected: String, hasEscapes: Bool) throws {
        let bytes = Array(json.utf8)
        let value = try scanJSON(bytes).get()
        #expect(value.kind == .string)
        #expect(value.hasEscapes == hasEscapes)
        let string = try bytes.withUnsafeBytes { buffer throws(JSONScanner.Failure) in
            try JSONScanner.string(value, in: buffer)
        }
        #expect(string == expected)
        // Foundation reads the same string.
        let foundation = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? String
        #expect(foundation == expected)
    }

    @Test
    func loneSurrogateEscapeIsReplacedWithReplacementCharacter() throws {
        // Documented choice: a lone surrogate is accepted and read as U+FFFD.
        for (json, expected) in [(#""\ud800x""#, "\u{FFFD}x"), (#""\udc00""#, "\u{FFFD}"), (#""\ud83d\u0041""#, "\u{FFFD}A")] {
            let bytes = Array(json.utf8)
            let value = try scanJSON(bytes).get()
            let string = try bytes.withUnsafeBytes { buffer throws(JSONScanner.Failure) in
                try JSONScanner.string(value, in: buffer)
            }
            #expect(string == expected, "\(json)")
        }
    }

    // MARK: - Members and elements

    @Test
    func membersReturnKeysAndExactValueRanges() throws {
        let text = #"{ "a" : 1 , "b":"x\"y", "c" : [ 1, {"d":null} ] ,"k\u0065y" :true, "e":{ } }"#
        let bytes = Array(text.utf8)
        let top = try scanJSON(bytes).get()
        let members = bytes.withUnsafeBytes { JSONScanner().members(of: top, in: $0) }
        #expect(members.map(\.key) == ["a", "b", "c", "key", "e"])
        #expect(members.map(\.value.kind) == [.number, .string, .array, .bool, .object])
        let texts = members.map { String(decoding: bytes[$0.value.range], as: UTF8.self) }
        #expect(texts == ["1", #""x\"y""#, #"[ 1, {"d":null} ]"#, "true", "{ }"])
        #expect(members[1].value.hasEscapes)
        #expect(!members[0].value.hasEscapes)

        // Nested values can be opened the same way, with ranges into the same buffer.
        let nested = bytes.withUnsafeBytes { JSONScanner().elements(of: members[2].value, in: $0) }
        #expect(nested.map { String(decoding: bytes[$0.range], as: UTF8.self) } == ["1", #"{"d":null}"#])
        let inner = bytes.withUnsafeBytes { JSONScanner().members(of: nested[1], in: $0) }
        #expect(inner.map(\.key) == ["d"])
        #expect(inner.first?.value.kind == .null)
        #expect(inner.first.map { String(decoding: bytes[$0.value.range], as: UTF8.self) } == "null")
    }

    @Test
    func membersStepOverBracketsAndQuotesInsideStrings() throws {
        // members(of:) steps over values `scan` validated without checking them again: brackets and escaped
        // quotes inside strings, and a string ending in an escaped backslash, must not end a value early.
        let text = #"{"s":"a]}\\","o":{"k":["]\"[",{"}":1}]},"n":-0.5E-2,"t":false}"#
        let bytes = Array(text.utf8)
        let top = try scanJSON(bytes).get()
        let members = bytes.withUnsafeBytes { JSONScanner().members(of: top, in: $0) }
        #expect(members.map(\.key) == ["s", "o", "n", "t"])
        #expect(members.map(\.value.kind) == [.string, .object, .number, .bool])
        let texts = members.map { String(decoding: bytes[$0.value.range], as: UTF8.self) }
        #expect(texts == [#""a]}\\""#, #"{"k":["]\"[",{"}":1}]}"#, "-0.5E-2", "false"])
        #expect(members[0].value.hasEscapes)
        let inner = bytes.withUnsafeBytes { JSONScanner().members(of: members[1].value, in: $0) }
        let elements = bytes.withUnsafeBytes { JSONScanner().elements(of: inner[0].value, in: $0) }
        #expect(elements.map { String(decoding: bytes[$0.range], as: UTF8.self) } == [#""]\"[""#, #"{"}":1}"#])
    }

    @Test
    func elementsReturnExactRanges() throws {
        let text = " [ 1 , -2.5e3,\"s\" ,[],{} , null,false\n] "
        let bytes = Array(text.utf8)
        let top = try scanJSON(bytes).get()
        #expect(top.range == 1..<(bytes.count - 1))
        let elements = bytes.withUnsafeBytes { JSONScanner().elements(of: top, in: $0) }
        #expect(elements.map(\.kind) == [.number, .number, .string, .array, .object, .null, .bool])
        let texts = elements.map { String(decoding: bytes[$0.range], as: UTF8.self) }
        #expect(texts == ["1", "-2.5e3", "\"s\"", "[]", "{}", "null", "false"])
        #expect(elements[0].range == 3..<4)
    }

    @Test
    func emptyContainersHaveNoMembersOrElements() throws {
        let object = Array("{ \n }".utf8)
        let objectValue = try scanJSON(object).get()
        #expect(object.withUnsafeBytes { JSONScanner().members(of: objectValue, in: $0) }.isEmpty)
        let array = Array("[\t]".utf8)
        let arrayValue = try scanJSON(array).get()
        #expect(array.withUnsafeBytes { JSONScanner().elements(of: arrayValue, in: $0) }.isEmpty)
    }

    @Test
    func duplicateKeysAreAllReportedInOrder() throws {
        let bytes = Array(#"{"id":1,"id":2}"#.utf8)
        let top = try scanJSON(bytes).get()
        let members = bytes.withUnsafeBytes { JSONScanner().members(of: top, in: $0) }
        #expect(members.map(\.key) == ["id", "id"])
        #expect(members.map { String(decoding: bytes[$0.value.range], as: UTF8.self) } == ["1", "2"])
    }
}
