import Foundation
import GuildProtocol
import Testing

/// A simplified, comparable view of a parsed frame.
enum FrameShape: Equatable, CustomStringConvertible {
    case failure(code: Int, reason: String?)
    case single(EntryShape)
    case batch([EntryShape])

    var description: String {
        switch self {
        case .failure(let code, let reason): "failure(\(code), \(reason ?? "nil"))"
        case .single(let entry): "single(\(entry))"
        case .batch(let entries): "batch(\(entries))"
        }
    }
}

/// A simplified, comparable view of one entry.
enum EntryShape: Equatable, CustomStringConvertible {
    /// `id` is the id's JSON text (nil for a notification); `params` the params' exact text.
    case request(id: String?, method: String, params: String?)
    case invalid(id: String, code: Int, reason: String?)

    var description: String {
        switch self {
        case .request(let id, let method, let params): "request(\(id ?? "-"), \(method), \(params ?? "-"))"
        case .invalid(let id, let code, let reason): "invalid(\(id), \(code), \(reason ?? "nil"))"
        }
    }
}

extension RPCFrame {
    var shape: FrameShape {
        switch self {
        case .failure(let error): .failure(code: error.code.rawValue, reason: error.reason)
        case .single(let entry): .single(entry.shape)
        case .batch(let entries): .batch(entries.map(\.shape))
        }
    }
}

extension RPCFrame.Entry {
    var shape: EntryShape {
        switch self {
        case .request(let request):
            .request(
                id: request.id?.json,
                method: request.method,
                params: request.params.map { String(decoding: $0, as: UTF8.self) }
            )
        case .invalid(let id, let error):
            .invalid(id: id.json, code: error.code.rawValue, reason: error.reason)
        }
    }
}

private func parse(_ text: String, _ parser: RequestParser = RequestParser()) -> RPCFrame {
    parser.parse(Array(text.utf8))
}

private let invalidRequest = -32600

struct RequestParserTests {
    // MARK: - The JSON-RPC 2.0 specification's examples

    @Test
    func specificationPositionalParameters() {
        #expect(
            parse(#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#).shape
                == .single(.request(id: "1", method: "subtract", params: "[42, 23]"))
        )
        #expect(
            parse(#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#).shape
                == .single(.request(id: "2", method: "subtract", params: "[23, 42]"))
        )
    }

    @Test
    func specificationNamedParameters() throws {
        let frame = parse(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#)
        #expect(frame.shape == .single(.request(id: "3", method: "subtract", params: #"{"subtrahend": 23, "minuend": 42}"#)))
        guard case .single(.request(let request)) = frame else {
            Issue.record("expected a request")
            return
        }
        let params = try RPCCoding.decodeParams(ConformanceMethods.Subtract.Params.self, from: try #require(request.params))
        #expect(params == ConformanceMethods.Subtract.Params(minuend: 42, subtrahend: 23))
        #expect(!request.isNotification)
        #expect(request.id?.intValue == 3)
    }

    @Test
    func specificationNotifications() throws {
        let update = parse(#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#)
        #expect(update.shape == .single(.request(id: nil, method: "update", params: "[1,2,3,4,5]")))
        guard case .single(.request(let request)) = update else {
            Issue.record("expected a request")
            return
        }
        #expect(request.isNotification)
        #expect(parse(#"{"jsonrpc": "2.0", "method": "foobar"}"#).shape == .single(.request(id: nil, method: "foobar", params: nil)))
    }

    @Test
    func specificationNonExistentMethodIsStillARequest() {
        // Whether the method exists is the dispatcher's business; the parser keeps the id's exact text.
        #expect(
            parse(#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#).shape
                == .single(.request(id: #""1""#, method: "foobar", params: nil))
        )
    }

    @Test
    func specificationInvalidJSONIsAParseError() {
        let frame = parse(#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#)
        #expect(frame.shape == .failure(code: -32700, reason: "PARSE_ERROR"))
        guard case .failure(let error) = frame else { return }
        #expect(error.message.hasPrefix("Parse error"))
    }

    @Test
    func specificationInvalidRequestObject() {
        #expect(
            parse(#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#).shape
                == .single(.invalid(id: "null", code: invalidRequest, reason: "INVALID_REQUEST"))
        )
    }

    @Test
    func specificationBatchWithInvalidJSONIsAParseError() {
        let text = """
            [
              {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
              {"jsonrpc": "2.0", "method"
            ]
            """
        #expect(parse(text).shape == .failure(code: -32700, reason: "PARSE_ERROR"))
    }

    @Test
    func specificationEmptyArrayIsAnEmptyBatch() {
        #expect(parse("[]").shape == .failure(code: invalidRequest, reason: "EMPTY_BATCH"))
        #expect(parse(" [ \n ] ").shape == .failure(code: invalidRequest, reason: "EMPTY_BATCH"))
    }

    @Test
    func specificationInvalidBatchOfOne() {
        #expect(parse("[1]").shape == .batch([.invalid(id: "null", code: invalidRequest, reason: "INVALID_REQUEST")]))
    }

    @Test
    func specificationInvalidBatchOfThree() {
        let invalid = EntryShape.invalid(id: "null", code: invalidRequest, reason: "INVALID_REQUEST")
        #expect(parse("[1,2,3]").shape == .batch([invalid, invalid, invalid]))
    }

    @Test
    func specificationMixedBatch() {
        let text = """
            [
                    {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
                    {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
                    {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
                    {"foo": "boo"},
                    {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
                    {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
                ]
            """
        #expect(
            parse(text).shape
                == .batch([
                    .request(id: #""1""#, method: "sum", params: "[1,2,4]"),
                    .request(id: nil, method: "notify_hello", params: "[7]"),
                    .request(id: #""2""#, method: "subtract", params: "[42,23]"),
                    .invalid(id: "null", code: invalidRequest, reason: "INVALID_REQUEST"),
                    .request(id: #""5""#, method: "foo.get", params: #"{"name": "myself"}"#),
                    .request(id: #""9""#, method: "get_data", params: nil),
                ])
        )
    }

    @Test
    func specificationBatchOfNotifications() {
        let text = """
            [
                    {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
                    {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
                ]
            """
        #expect(
            parse(text).shape
                == .batch([
                    .request(id: nil, method: "notify_sum", params: "[1,2,4]"),
                    .request(id: nil, method: "notify_hello", params: "[7]"),
                ])
        )
    }

    // MARK: - Ids

    @Test(arguments: ["1", #""1""#, "1.50", "-0", "1e3", "null", #""a\"b""#, #""\u00e9\n""#, #""""#])
    func idIsKeptAsExactJSONText(id: String) {
        let frame = parse(#"{"jsonrpc":"2.0","method":"m","id":\#(id)}"#)
        #expect(frame.shape == .single(.request(id: id, method: "m", params: nil)))
    }

    @Test(arguments: [#"{"a":1}"#, "[1]", "[]", "true", "false"])
    func idOfTheWrongTypeIsInvalidWithNullID(id: String) {
        #expect(
            parse(#"{"jsonrpc":"2.0","method":"m","id":\#(id)}"#).shape
                == .single(.invalid(id: "null", code: invalidRequest, reason: "INVALID_REQUEST"))
        )
    }

    // MARK: - Envelope validation

    @Test(arguments: [
        #"{"jsonrpc":"1.0","method":"m","id":7}"#,
        #"{"jsonrpc":2.0,"method":"m","id":7}"#,
        #"{"jsonrpc":"2.0 ","method":"m","id":7}"#,
        #"{"jsonrpc":null,"method":"m","id":7}"#,
        #"{"method":"m","id":7}"#,
    ])
    func wrongOrMissingVersionIsInvalidWithIDEchoed(text: String) throws {
        #expect(parse(text).shape == .single(.invalid(id: "7", code: invalidRequest, reason: "INVALID_REQUEST")))
    }

    @Test
    func missingVersionEchoesAStringID() {
        #expect(
            parse(#"{"method":"m","id":"x\"y"}"#).shape
                == .single(.invalid(id: #""x\"y""#, code: invalidRequest, reason: "INVALID_REQUEST"))
        )
    }

    @Test
    func versionWrittenWithEscapesIsAccepted() {
        #expect(
            parse(#"{"jsonrpc":"\u0032.0","method":"m","id":1}"#).shape
                == .single(.request(id: "1", method: "m", params: nil))
        )
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":4}"#,
        #"{"jsonrpc":"2.0","method":4,"id":4}"#,
        #"{"jsonrpc":"2.0","method":null,"id":4}"#,
        #"{"jsonrpc":"2.0","method":["m"],"id":4}"#,
    ])
    func missingOrNonStringMethodIsInvalid(text: String) {
        #expect(parse(text).shape == .single(.invalid(id: "4", code: invalidRequest, reason: "INVALID_REQUEST")))
    }

    @Test(arguments: [#""bar""#, "42", "true", "null"])
    func paramsThatAreNeitherObjectNorArrayAreInvalid(params: String) {
        #expect(
            parse(#"{"jsonrpc":"2.0","method":"m","params":\#(params),"id":9}"#).shape
                == .single(.invalid(id: "9", code: invalidRequest, reason: "INVALID_REQUEST"))
        )
    }

    @Test(arguments: ["1", #""str""#, "null", "true"])
    func nonObjectSingleMessageIsInvalid(text: String) {
        #expect(parse(text).shape == .single(.invalid(id: "null", code: invalidRequest, reason: "INVALID_REQUEST")))
    }

    @Test(arguments: [
        #"{"\u006a\u0073onrpc":"2.0","\u006dethod":"m","p\u0061rams":[1],"\u0069d":7}"#,
        #"{"jsonrpc":"2.0","method":"m","params":[1],"id":7}"#,
        #"{ "jsonrpc" : "2.0" , "method" : "m" , "params" : [ 1 ] , "id" : 7 }"#,
    ])
    func envelopeKeysAreReadAsTheirTextInSingleRequestsAndBatches(text: String) {
        #expect(parse(text).shape == .single(.request(id: "7", method: "m", params: text.contains("[ 1 ]") ? "[ 1 ]" : "[1]")))
        #expect(parse("[\(text)]").shape == .batch([.request(id: "7", method: "m", params: text.contains("[ 1 ]") ? "[ 1 ]" : "[1]")]))
    }

    @Test
    func keysThatOnlyLookLikeEnvelopeKeysAreIgnored() {
        // Same length as an envelope key, or a prefix of one, or with an escape that makes it another text.
        let text = #"{"jsonrpc":"2.0","methox":"a","i":1,"idd":2,"method":"m","param":{},"jsonrpd":"x","\u0069e":3,"id":5}"#
        #expect(parse(text).shape == .single(.request(id: "5", method: "m", params: nil)))
    }

    @Test
    func aRepeatedKeyCountsAsItsLastValue() {
        let text = #"{"jsonrpc":"1.0","id":1,"method":"a","jsonrpc":"2.0","method":"b","id":"x","params":[],"params":{}}"#
        #expect(parse(text).shape == .single(.request(id: #""x""#, method: "b", params: "{}")))
        #expect(parse("[\(text),\(text)]").shape == .batch(Array(repeating: .request(id: #""x""#, method: "b", params: "{}"), count: 2)))
    }

    @Test
    func escapedMethodNameIsUnescaped() {
        #expect(
            parse(#"{"jsonrpc":"2.0","method":"user.\u0072egister\n","id":1}"#).shape
                == .single(.request(id: "1", method: "user.register\n", params: nil))
        )
    }

    @Test
    func unknownMembersAreIgnored() {
        #expect(
            parse(#"{"extra":{"deep":[1]},"jsonrpc":"2.0","method":"m","params":{},"id":1}"#).shape
                == .single(.request(id: "1", method: "m", params: "{}"))
        )
    }

    // MARK: - Limits

    @Test
    func batchOverTheConfiguredLimitIsTooLarge() {
        let parser = RequestParser(maximumBatchSize: 2)
        let entry = #"{"jsonrpc":"2.0","method":"m"}"#
        let two = parse("[\(entry),\(entry)]", parser)
        #expect(two.shape == .batch([.request(id: nil, method: "m", params: nil), .request(id: nil, method: "m", params: nil)]))
        let three = parse("[\(entry),\(entry),\(entry)]", parser)
        #expect(three.shape == .failure(code: invalidRequest, reason: "BATCH_TOO_LARGE"))
    }

    @Test
    func batchAtTheDefaultLimitIsAccepted() {
        let entries = (0..<1000).map { #"{"jsonrpc":"2.0","method":"m","id":\#($0)}"# }
        guard case .batch(let parsed) = parse("[" + entries.joined(separator: ",") + "]") else {
            Issue.record("a batch of 1000 should be accepted")
            return
        }
        #expect(parsed.count == 1000)
        #expect(parsed.last?.shape == .request(id: "999", method: "m", params: nil))
    }

    @Test
    func tenThousandEntryBatchExceedsTheDefaultLimit() {
        let entries = Array(repeating: #"{"jsonrpc":"2.0","method":"system.ping","id":1}"#, count: 10_000)
        let frame = parse("[" + entries.joined(separator: ",") + "]")
        #expect(frame.shape == .failure(code: invalidRequest, reason: "BATCH_TOO_LARGE"))
        if case .failure(let error) = frame {
            #expect(error.message.contains("10000"))
        }
    }

    @Test
    func nestingDeeperThanTheLimitIsAParseErrorWithReason() {
        let deep =
            #"{"jsonrpc":"2.0","method":"m","params":"# + String(repeating: "[", count: 200)
            + String(repeating: "]", count: 200) + "}"
        #expect(parse(deep).shape == .failure(code: -32700, reason: "NESTING_TOO_DEEP"))
        let shallow =
            #"{"jsonrpc":"2.0","method":"m","params":"# + String(repeating: "[", count: 127)
            + String(repeating: "]", count: 127) + "}"
        guard case .single(.request(let request)) = parse(shallow) else {
            Issue.record("127 levels of params (128 with the envelope) should be accepted")
            return
        }
        #expect(request.params?.count == 254)
    }

    @Test
    func invalidUTF8IsAParseError() {
        var bytes = Array(#"{"jsonrpc":"2.0","method":""#.utf8)
        bytes += [0xC0, 0x80]
        bytes += Array(#"","id":1}"#.utf8)
        let frame = RequestParser().parse(bytes)
        #expect(frame.shape == .failure(code: -32700, reason: "PARSE_ERROR"))
    }

    @Test
    func parsingFromARawBufferMatchesParsingFromAnArray() {
        let bytes = Array(#"{"jsonrpc":"2.0","method":"m","params":[1],"id":"z"}"#.utf8)
        let fromBuffer = bytes.withUnsafeBytes { RequestParser().parse($0) }
        #expect(fromBuffer.shape == RequestParser().parse(bytes).shape)
        #expect(fromBuffer.shape == .single(.request(id: #""z""#, method: "m", params: "[1]")))
    }
}
