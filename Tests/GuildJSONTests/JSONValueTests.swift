import Foundation
import GuildJSON
import GuildProtocol
import Testing

struct JSONValueTests {
    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("42", .int(42)),
        ("-7", .int(-7)),
        ("9223372036854775807", .int(Int64.max)),
        ("-9223372036854775808", .int(Int64.min)),
        ("1.5", .double(1.5)),
        ("-2.5e-3", .double(-0.0025)),
        ("1e300", .double(1e300)),
        (#""s\n😀""#, .string("s\n😀")),
        ("[]", .array([])),
        (#"[1,"a",null,[true]]"#, .array([.int(1), .string("a"), .null, .array([.bool(true)])])),
        ("{}", .object([:])),
        (#"{"a":{"b":[false]},"c":0.5}"#, .object(["a": .object(["b": .array([.bool(false)])]), "c": .double(0.5)])),
    ])
    func decodesEveryKindOfValue(json: String, expected: JSONValue) throws {
        #expect(try RPCCoding.decode(JSONValue.self, from: Array(json.utf8)) == expected)
    }

    @Test
    func numbersBeyondInt64BecomeDoubles() throws {
        #expect(try RPCCoding.decode(JSONValue.self, from: Array("9223372036854775808".utf8)) == .double(9_223_372_036_854_775_808))
    }

    @Test(arguments: [
        JSONValue.null, .bool(true), .int(-3), .int(Int64.max), .double(0.25), .string("q\"u\\o/te\n"), .array([]),
        .object([:]),
        ["nested": ["list": [1, 2.5, "x", nil, false], "empty": [:]], "unicode": "漢字😀"],
    ])
    func roundTripsThroughJSON(value: JSONValue) throws {
        let bytes = try RPCCoding.encode(value)
        #expect(try RPCCoding.decode(JSONValue.self, from: bytes) == value)
        _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    @Test
    func literalsBuildTheMatchingCases() {
        let value: JSONValue = ["s": "text", "i": 3, "d": 1.5, "b": true, "n": nil, "a": [1, "two"]]
        #expect(
            value
                == .object([
                    "s": .string("text"), "i": .int(3), "d": .double(1.5), "b": .bool(true), "n": .null,
                    "a": .array([.int(1), .string("two")]),
                ])
        )
    }

    @Test
    func dictionaryLiteralKeepsTheLastDuplicate() {
        let value: JSONValue = ["k": 1, "k": 2]
        #expect(value == .object(["k": .int(2)]))
    }

    @Test
    func accessorsReturnValuesOnlyForTheirKind() {
        let object: JSONValue = ["name": "ada", "n": 2]
        #expect(object.objectValue?.count == 2)
        #expect(object["name"] == .string("ada"))
        #expect(object["name"]?.stringValue == "ada")
        #expect(object["missing"] == nil)
        #expect(object.stringValue == nil)
        #expect(object.intValue == nil)
        #expect(object.boolValue == nil)

        let string: JSONValue = "x"
        #expect(string.stringValue == "x")
        #expect(string["name"] == nil)
        #expect(string.objectValue == nil)
        #expect(string.intValue == nil)

        #expect(JSONValue.bool(false).boolValue == false)
        #expect(JSONValue.int(1).boolValue == nil)
        #expect(JSONValue.null.stringValue == nil)
    }

    @Test(arguments: [
        (JSONValue.int(5), Int64?.some(5)),
        (.int(-9), -9),
        (.double(3.0), 3),
        (.double(-4.0), -4),
        (.double(3.5), nil),
        (.double(1e19), nil),
        (.double(.infinity), nil),
        (.double(.nan), nil),
        (.string("5"), nil),
        (.bool(true), nil),
        (.null, nil),
    ])
    func intValueIsPresentOnlyForIntegralNumbers(value: JSONValue, expected: Int64?) {
        #expect(value.intValue == expected)
    }

    /// A database column's text: written compact with keys sorted, read back to the same value.
    @Test func textRoundTripsThroughAString() throws {
        let value: JSONValue = ["b": [1, 2.5, "x/é\u{1F600}"], "a": ["nested": nil, "flag": true]]
        #expect(value.jsonText == #"{"a":{"flag":true,"nested":null},"b":[1,2.5,"x/é😀"]}"#)
        #expect(try JSONValue(parsing: value.jsonText) == value)
        #expect(throws: JSONScanner.Failure.self) { try JSONValue(parsing: "{\"a\":") }
    }
}
