import Foundation
import GuildJSON
import GuildProtocol
import Testing

private struct Inner: Codable, Equatable {
    var count: Int
}

private struct Item: Codable, Equatable {
    var name: String
    var tags: [String]?
}

private struct Outer: Codable, Equatable {
    var inner: Inner
    var items: [Item]?
    var flag: Bool?
}

/// Decodes params and returns the RPCError thrown, failing the test if none is.
private func paramsError<T: Decodable>(_ type: T.Type, _ json: String) -> RPCError? {
    do throws(RPCError) {
        let value = try RPCCoding.decodeParams(type, from: Array(json.utf8))
        Issue.record("decoding \(json) unexpectedly succeeded: \(value)")
        return nil
    } catch {
        return error
    }
}

struct RPCCodingTests {
    // MARK: - decodeParams

    @Test
    func decodeParamsReturnsTheValue() throws {
        let params = try RPCCoding.decodeParams(UserMethods.Login.Params.self, from: Array(#"{"username":"ada","password":"pw"}"#.utf8))
        #expect(params == UserMethods.Login.Params(username: "ada", password: "pw"))
    }

    @Test
    func decodeParamsAcceptsAnArraySlice() throws {
        let line = Array(#"xx{"inner":{"count":3}}yy"#.utf8)
        let value = try RPCCoding.decodeParams(Outer.self, from: line[2..<(line.count - 2)])
        #expect(value == Outer(inner: Inner(count: 3), items: nil, flag: nil))
    }

    @Test(arguments: [
        (#"{}"#, "password"),
        (#"{"username":"ada"}"#, "password"),
    ])
    func missingRequiredFieldIsNamed(json: String, field: String) throws {
        let error = try #require(paramsError(UserMethods.Login.Params.self, json))
        #expect(error.code == .invalidParams)
        #expect(error.code.rawValue == -32602)
        #expect(error.reason == ErrorReason.invalidParams)
        #expect(error.field == field)
        #expect(error.message.contains(field))
        #expect(error.message.hasPrefix("Invalid params"))
    }

    @Test
    func wrongTypeNamesTheFieldAndType() throws {
        let error = try #require(paramsError(UserMethods.Login.Params.self, #"{"password":5}"#))
        #expect(error.code == .invalidParams)
        #expect(error.field == "password")
        #expect(error.message.contains("must be of type string"))
    }

    @Test
    func wrongTypeForOptionalFieldIsNamed() throws {
        let error = try #require(paramsError(UserMethods.Login.Params.self, #"{"password":"pw","email":["a"]}"#))
        #expect(error.field == "email")
    }

    @Test
    func nullForNonOptionalFieldIsNamed() throws {
        let error = try #require(paramsError(UserMethods.Login.Params.self, #"{"password":null}"#))
        #expect(error.code == .invalidParams)
        #expect(error.field == "password")
        #expect(error.message.contains("must not be null"))
    }

    @Test
    func nullForOptionalFieldIsAccepted() throws {
        let params = try RPCCoding.decodeParams(UserMethods.Login.Params.self, from: Array(#"{"password":"pw","email":null}"#.utf8))
        #expect(params.email == nil)
    }

    @Test(arguments: [
        (#"{"inner":{"count":"x"}}"#, "inner.count"),
        (#"{"inner":{}}"#, "inner.count"),
        (#"{"inner":{"count":null}}"#, "inner.count"),
        (#"{"inner":5}"#, "inner"),
        (#"{"inner":{"count":1},"items":[{"name":1}]}"#, "items[0].name"),
        (#"{"inner":{"count":1},"items":[{"name":"a"},{}]}"#, "items[1].name"),
        (#"{"inner":{"count":1},"items":[{"name":"a","tags":["t",2]}]}"#, "items[0].tags[1]"),
        (#"{"inner":{"count":1},"items":{"name":"a"}}"#, "items"),
        (#"{"inner":{"count":1},"flag":"yes"}"#, "flag"),
    ])
    func nestedFieldPathsAreDotted(json: String, field: String) throws {
        let error = try #require(paramsError(Outer.self, json))
        #expect(error.code == .invalidParams)
        #expect(error.field == field)
        #expect(error.message.contains(field))
    }

    @Test
    func arrayElementPathIsBracketed() throws {
        let error = try #require(paramsError([Int].self, #"[1,"x"]"#))
        #expect(error.field == "[1]")
        #expect(error.message.contains("must be of type integer"))
    }

    /// Integers JSONDecoder cannot hold ("The given data was not valid JSON", no path): the number is found
    /// and named, past fractions in floating-point and JSONValue fields.
    @Test(arguments: [
        (#"{"inner":{"count":9223372036854775808}}"#, "inner.count", ErrorReason.numberOutOfRange),
        (#"{"inner":{"count":-9223372036854775809}}"#, "inner.count", ErrorReason.numberOutOfRange),
        (#"{"inner":{"count":1e300}}"#, "inner.count", ErrorReason.numberOutOfRange),
        (#"{"inner":{"count":9223372036854775807.0}}"#, "inner.count", ErrorReason.numberOutOfRange),
        (#"{"inner":{"count":1.5}}"#, "inner.count", ErrorReason.invalidParams),
        (#"{"inner":{"count":1e-300}}"#, "inner.count", ErrorReason.invalidParams),
    ])
    func unfitIntegersAreNamed(json: String, field: String, reason: String) throws {
        let error = try #require(paramsError(Outer.self, json))
        #expect(error.code == .invalidParams)
        #expect(error.field == field)
        #expect(error.reason == reason)
        #expect(error.message.contains(reason == ErrorReason.invalidParams ? "must be an integer" : "out of range"), "\(error.message)")
        #expect(!error.message.contains("not valid JSON"))
    }

    private struct Mixed: Codable {
        var ratio: Double
        var values: [Double]
        var any: JSONValue
        var items: [Inner]
    }

    @Test
    func anUnfitIntegerIsFoundPastFractionsThatFit() throws {
        let error = try #require(
            paramsError(Mixed.self, #"{"ratio":0.5,"values":[1.5,1e300],"any":{"x":2.5},"items":[{"count":1},{"count":2.5}]}"#)
        )
        #expect(error.field == "items[1].count")
        #expect(error.reason == ErrorReason.invalidParams)
        let fits = try RPCCoding.decodeParams(Outer.self, from: Array(#"{"inner":{"count":2.5e1}}"#.utf8))
        #expect(fits.inner.count == 25)
    }

    @Test
    func customFieldValueThatIsNotRepresentableIsNamed() throws {
        // 1e400 is valid JSON but neither an Int64 nor a finite Double, so the JSONValue at fields.a fails.
        let error = try #require(paramsError(UserMethods.Register.Params.self, #"{"password":"pw","fields":{"a":1e400}}"#))
        #expect(error.field == "fields.a")
    }

    @Test
    func customFieldNamedLikeANumberIsNotFormattedAsAnIndex() throws {
        let error = try #require(paramsError(UserMethods.Register.Params.self, #"{"password":"pw","fields":{"5":1e400}}"#))
        #expect(error.field == "fields.5")
    }

    @Test
    func customFieldsOfTheWrongTypeAreNamed() throws {
        let error = try #require(paramsError(UserMethods.Register.Params.self, #"{"password":"pw","fields":[1]}"#))
        #expect(error.field == "fields")
        #expect(error.message.contains("must be of type object"))
    }

    @Test(arguments: [#"[1,2]"#, #""text""#, "42"])
    func wholeParamsOfTheWrongShapeHaveNoField(json: String) throws {
        let error = try #require(paramsError(UserMethods.Login.Params.self, json))
        #expect(error.code == .invalidParams)
        #expect(error.field == nil)
        #expect(error.reason == ErrorReason.invalidParams)
        #expect(error.message.contains("\"params\""))
    }

    @Test
    func corruptedJSONIsInvalidParams() throws {
        let error = try #require(paramsError(UserMethods.Login.Params.self, #"{"password":"#))
        #expect(error.code == .invalidParams)
        #expect(error.field == nil)
    }

    @Test
    func positionalSubtractParamsDecodeAsAnArray() throws {
        let numbers = try RPCCoding.decodeParams(ConformanceMethods.Sum.Params.self, from: Array("[1, 2.5, -4]".utf8))
        #expect(numbers == [1, 2.5, -4])
    }

    // MARK: - encode / decode

    @Test
    func encodeIsCompactSortedAndKeepsSlashes() throws {
        let value: JSONValue = ["zeta": "a/b", "alpha": [1, true, nil], "mid": ["y": 1, "x": 2]]
        let text = String(decoding: try RPCCoding.encode(value), as: UTF8.self)
        #expect(text == #"{"alpha":[1,true,null],"mid":{"x":2,"y":1},"zeta":"a/b"}"#)
    }

    @Test
    func encodeEscapesNewlinesSoOutputIsOneLine() throws {
        let bytes = try RPCCoding.encode(["text": "a\nb\r\u{2028}"] as JSONValue)
        #expect(!bytes.contains(0x0A))
        #expect(!bytes.contains(0x0D))
        #expect(try RPCCoding.decode(JSONValue.self, from: bytes) == ["text": "a\nb\r\u{2028}"])
    }

    @Test
    func decodeReadsFromAnyByteCollection() throws {
        let bytes = Array(#"  {"userID":"u1","deleted":true}  "#.utf8)
        let result = try RPCCoding.decode(UserMethods.Delete.Result.self, from: bytes[...])
        #expect(result == UserMethods.Delete.Result(userID: "u1", deleted: true))
    }

    @Test
    func invalidParamsFromADecodingErrorNamesTheKey() {
        let context = DecodingError.Context(codingPath: [], debugDescription: "test")
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        let error = RPCCoding.invalidParams(.keyNotFound(Key(stringValue: "token"), context))
        #expect(error.field == "token")
        #expect(error.code == .invalidParams)
        #expect(error.message == #"Invalid params: missing required parameter "token""#)
    }
}
