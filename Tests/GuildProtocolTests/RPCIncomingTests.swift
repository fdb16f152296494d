import Foundation
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// Parses one line the way a client would, rethrowing the typed error.
func parseIncoming(_ text: String) throws(RPCError) -> [RPCIncoming] {
    try parseIncoming(Array(text.utf8))
}

func parseIncoming(_ bytes: [UInt8]) throws(RPCError) -> [RPCIncoming] {
    let result: Result<[RPCIncoming], RPCError> = bytes.withUnsafeBytes { buffer in
        do throws(RPCError) {
            return .success(try RPCIncoming.parse(buffer))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}

extension RPCIncoming {
    /// The response's id text and result, when this is a response.
    var response: (id: String, result: Result<[UInt8], RPCError>)? {
        if case .response(let id, let result) = self { return (id.json, result) }
        return nil
    }

    /// The notification's method and params text, when this is a notification.
    var notification: (method: String, params: String?)? {
        if case .notification(let method, let params) = self {
            return (method, params.map { String(decoding: $0, as: UTF8.self) })
        }
        return nil
    }
}

extension Result where Success == [UInt8], Failure == RPCError {
    /// The success's text, or nil.
    var text: String? {
        if case .success(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    /// The failure, or nil.
    var error: RPCError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

struct RPCIncomingTests {
    @Test
    func successResponseKeepsExactResultText() throws {
        let messages = try parseIncoming(#"{"jsonrpc":"2.0","result": {"b": 1.50, "a":[1, 2 ]} ,"id":7}"#)
        #expect(messages.count == 1)
        let response = try #require(messages.first?.response)
        #expect(response.id == "7")
        #expect(response.result.text == #"{"b": 1.50, "a":[1, 2 ]}"#)
    }

    @Test(arguments: ["null", "false", "0", #""pong""#, "[]"])
    func scalarAndEmptyResultsAreSuccesses(result: String) throws {
        let response = try #require(try parseIncoming(#"{"jsonrpc":"2.0","id":"a\"b","result":\#(result)}"#).first?.response)
        #expect(response.id == #""a\"b""#)
        #expect(response.result.text == result)
    }

    @Test
    func errorResponseCarriesCodeMessageReasonAndField() throws {
        let text =
            #"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: missing","data":{"reason":"INVALID_PARAMS","field":"user.password","extra":[1]}}}"#
        let response = try #require(try parseIncoming(text).first?.response)
        #expect(response.id == "3")
        let error = try #require(response.result.error)
        #expect(error.code == .invalidParams)
        #expect(error.message == "Invalid params: missing")
        #expect(error.reason == "INVALID_PARAMS")
        #expect(error.field == "user.password")
        #expect(error.data?["extra"] == .array([.int(1)]))
    }

    @Test
    func errorResponseWithoutDataHasNoReason() throws {
        let text = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#
        let response = try #require(try parseIncoming(text).first?.response)
        #expect(response.id == "null")
        let error = try #require(response.result.error)
        #expect(error.code == .invalidRequest)
        #expect(error.reason == nil)
        #expect(error.field == nil)
        #expect(error.data == nil)
    }

    @Test
    func unreadableErrorObjectBecomesAnInternalError() throws {
        let response = try #require(try parseIncoming(#"{"jsonrpc":"2.0","id":1,"error":"oops"}"#).first?.response)
        let error = try #require(response.result.error)
        #expect(error.code == .internalError)
        #expect(error.message == "unreadable error object")
    }

    @Test
    func applicationErrorCodesDecode() throws {
        let text = #"{"jsonrpc":"2.0","id":2,"error":{"code":40401,"message":"No such user","data":{"reason":"USER_NOT_FOUND"}}}"#
        let error = try #require(try parseIncoming(text).first?.response?.result.error)
        #expect(error.code == .userNotFound)
        #expect(error.reason == ErrorReason.userNotFound)
    }

    @Test
    func notificationWithParams() throws {
        let messages = try parseIncoming(#"{"jsonrpc":"2.0","method":"events.event","params":{"seq": 1, "data":"x"}}"#)
        let notification = try #require(messages.first?.notification)
        #expect(notification.method == "events.event")
        #expect(notification.params == #"{"seq": 1, "data":"x"}"#)
    }

    @Test
    func notificationWithoutParams() throws {
        let notification = try #require(try parseIncoming(#"{"method":"bye\n","jsonrpc":"2.0"}"#).first?.notification)
        #expect(notification.method == "bye\n")
        #expect(notification.params == nil)
    }

    @Test
    func batchArrayYieldsEveryMessageInOrder() throws {
        let text = """
            [{"jsonrpc":"2.0","id":2,"result":"two"},
             {"jsonrpc":"2.0","id":"1","error":{"code":-32601,"message":"Method not found","data":{"reason":"METHOD_NOT_FOUND"}}},
             {"jsonrpc":"2.0","method":"events.event","params":[1]}]
            """
        let messages = try parseIncoming(text)
        #expect(messages.count == 3)
        #expect(messages[0].response?.id == "2")
        #expect(messages[0].response?.result.text == #""two""#)
        #expect(messages[1].response?.id == #""1""#)
        #expect(messages[1].response?.result.error?.code == .methodNotFound)
        #expect(messages[2].notification?.method == "events.event")
        #expect(messages[2].notification?.params == "[1]")
    }

    @Test
    func resultsNestedDeeperThanTheRequestLimitAreAccepted() throws {
        let nested = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        let response = try #require(try parseIncoming(#"{"jsonrpc":"2.0","id":1,"result":\#(nested)}"#).first?.response)
        #expect(response.result.text == nested)
    }

    static let invalidLines: [ByteCase] = [
        ByteCase("", []),
        ByteCase("{"),
        ByteCase("not json"),
        ByteCase(#"{"jsonrpc":"2.0","id":1,"result":1} trailing"#),
        ByteCase("42"),
        ByteCase(#""text""#),
        ByteCase("null"),
        ByteCase(#"{"jsonrpc":"2.0"}"#),
        ByteCase(#"{"jsonrpc":"2.0","id":1}"#),
        ByteCase(#"{"jsonrpc":"2.0","result":1}"#),
        ByteCase("invalid UTF-8 in a result", Array(#"{"jsonrpc":"2.0","id":1,"result":""#.utf8) + [0xFF] + Array(#""}"#.utf8)),
        ByteCase("nested beyond 512", Array(String(repeating: "[", count: 513).utf8) + Array(String(repeating: "]", count: 513).utf8)),
    ]

    @Test(arguments: invalidLines)
    func invalidInputThrowsAParseError(input: ByteCase) {
        let error = #expect(throws: RPCError.self) {
            _ = try parseIncoming(input.bytes)
        }
        #expect(error?.code == .parseError)
        #expect(error?.reason == ErrorReason.parseError)
    }

    @Test func oneUnreadableBatchEntryDoesNotCostTheOthersTheirReplies() throws {
        let messages = try parseIncoming(Array(#"[{"jsonrpc":"2.0","id":1},{"jsonrpc":"2.0","id":2,"result":"ok"}]"#.utf8))
        #expect(messages.count == 1)
        guard case .response(let id, .success(let result)) = messages.first else {
            Issue.record("expected the readable response")
            return
        }
        #expect(id.json == "2")
        #expect(result == Array(#""ok""#.utf8))
    }
}
