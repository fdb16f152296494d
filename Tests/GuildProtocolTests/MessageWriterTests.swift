import Foundation
import GuildJSON
import GuildProtocol
import Testing

/// Checks that `bytes` are one line of valid JSON, and returns the parsed object.
private func singleLineObject(_ bytes: [UInt8]) throws -> [String: Any] {
    #expect(!bytes.contains(0x0A), "output contains a raw newline")
    #expect(!bytes.contains(0x0D), "output contains a raw carriage return")
    let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    return try #require(object)
}

struct MessageWriterTests {
    static let ids: [RequestID] = [
        RequestID(1), RequestID(-5), RequestID(Int.max), RequestID("abc"), RequestID("a\"b\\c\nd\u{1}"), RequestID("é😀"),
        .null, RequestID(json: "1.50"),
    ]

    @Test
    func resultHasTheExactWireForm() {
        var bytes: [UInt8] = []
        RPCMessageWriter.appendResult(id: RequestID(7), result: Array(#"{"a":[1,2]}"#.utf8), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"jsonrpc":"2.0","id":7,"result":{"a":[1,2]}}"#)
    }

    @Test(arguments: ids)
    func resultRoundTripsThroughRPCIncoming(id: RequestID) throws {
        let result = Array(#"{"b": 1.50, "list":[ "x\ny" , null]}"#.utf8)
        var bytes: [UInt8] = []
        RPCMessageWriter.appendResult(id: id, result: result, to: &bytes)
        let object = try singleLineObject(bytes)
        #expect(object["jsonrpc"] as? String == "2.0")
        let messages = try parseIncoming(bytes)
        #expect(messages.count == 1)
        let response = try #require(messages.first?.response)
        #expect(response.id == id.json)
        #expect(response.result.text.map { Array($0.utf8) } == result)
    }

    @Test(arguments: ids)
    func errorRoundTripsThroughRPCIncoming(id: RequestID) throws {
        let error = RPCError(
            code: .invalidParams,
            message: "Invalid params: line one\nline \"two\"\t\u{0}",
            reason: ErrorReason.invalidParams,
            field: "fields.a[0]",
            extra: ["limit": 5, "path": "/a/b"]
        )
        var bytes: [UInt8] = []
        RPCMessageWriter.appendError(id: id, error: error, to: &bytes)
        let object = try singleLineObject(bytes)
        #expect(object["result"] == nil)
        let response = try #require(try parseIncoming(bytes).first?.response)
        #expect(response.id == id.json)
        #expect(response.result.error == error)
    }

    @Test
    func errorHasTheExactWireForm() {
        var bytes: [UInt8] = []
        RPCMessageWriter.appendError(id: .null, error: .invalidRequest("empty batch", reason: ErrorReason.emptyBatch), to: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"data":{"reason":"EMPTY_BATCH"},"message":"Invalid Request: empty batch"}}"#
        )
    }

    @Test(arguments: ids)
    func requestRoundTripsThroughRequestParser(id: RequestID) throws {
        let params = Array(#"{"text":"a\nb","n":[1, 2.50]}"#.utf8)
        var bytes: [UInt8] = []
        RPCMessageWriter.appendRequest(id: id, method: "user.register", params: params, to: &bytes)
        let object = try singleLineObject(bytes)
        #expect(object["method"] as? String == "user.register")
        #expect(
            RequestParser().parse(bytes).shape
                == .single(.request(id: id.json, method: "user.register", params: String(decoding: params, as: UTF8.self)))
        )
    }

    @Test
    func requestWithoutParamsOmitsTheMember() {
        var bytes: [UInt8] = []
        RPCMessageWriter.appendRequest(id: RequestID(3), method: "system.ping", params: nil as [UInt8]?, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"jsonrpc":"2.0","id":3,"method":"system.ping"}"#)
    }

    @Test
    func notificationHasNoIDAndRoundTripsThroughRPCIncoming() throws {
        var bytes: [UInt8] = []
        RPCMessageWriter.appendRequest(id: nil, method: "events.event", params: Array(#"{"seq":1}"#.utf8), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"jsonrpc":"2.0","method":"events.event","params":{"seq":1}}"#)
        let notification = try #require(try parseIncoming(bytes).first?.notification)
        #expect(notification.method == "events.event")
        #expect(notification.params == #"{"seq":1}"#)
    }

    @Test(arguments: ["plain", "with \"quotes\"", "new\nline", "back\\slash", "tab\tand\u{1F}control", "ünï😀"])
    func methodNamesAreEscapedAndRoundTrip(method: String) throws {
        var bytes: [UInt8] = []
        RPCMessageWriter.appendRequest(id: nil, method: method, params: nil as [UInt8]?, to: &bytes)
        let object = try singleLineObject(bytes)
        #expect(object["method"] as? String == method)
        #expect(try parseIncoming(bytes).first?.notification?.method == method)
    }

    @Test(arguments: [(1, "system.ping"), (9_999_999_998, "user.get"), (-3, "tab\tand \"quotes\" ünï😀")])
    func requestLinesAreTheRequestsOneLineEach(firstID: Int, method: String) {
        let params: [[UInt8]?] = [nil, Array(#"{"userID":"u1"}"#.utf8), Array("{}".utf8), nil, Array("[1,2]".utf8)]
        var lines = Array("prefix|".utf8)
        RPCMessageWriter.appendRequestLines(firstID: firstID, method: method, params: params, to: &lines)
        var expected = Array("prefix|".utf8)
        for (offset, params) in params.enumerated() {
            RPCMessageWriter.appendRequest(id: RequestID(firstID + offset), method: method, params: params, to: &expected)
            expected.append(UInt8(ascii: "\n"))
        }
        #expect(String(decoding: lines, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(lines.split(separator: UInt8(ascii: "\n")).count == params.count)
    }

    @Test
    func writersAppendWithoutClearing() {
        var bytes = Array("prefix|".utf8)
        RPCMessageWriter.appendResult(id: RequestID(1), result: Array("true".utf8), to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        RPCMessageWriter.appendRequest(id: nil, method: "m", params: nil as [UInt8]?, to: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "prefix|{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":true}\n{\"jsonrpc\":\"2.0\",\"method\":\"m\"}"
        )
    }

    @Test
    func resultAcceptsAnyByteCollection() throws {
        let line = Array(#"....[1,2,3]...."#.utf8)
        var bytes: [UInt8] = []
        RPCMessageWriter.appendResult(id: RequestID("s"), result: line[4..<11], to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"jsonrpc":"2.0","id":"s","result":[1,2,3]}"#)
    }
}
