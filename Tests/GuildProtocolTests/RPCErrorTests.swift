import Foundation
import GuildJSON
import GuildProtocol
import Testing

struct RPCErrorTests {
    @Test
    func factoriesUseTheSpecificationCodesAndReasons() {
        #expect(RPCError.parseError("x").code.rawValue == -32700)
        #expect(RPCError.parseError("x").reason == "PARSE_ERROR")
        #expect(RPCError.parseError("x").message == "Parse error: x")
        #expect(RPCError.invalidRequest("y").code.rawValue == -32600)
        #expect(RPCError.invalidRequest("y").reason == "INVALID_REQUEST")
        #expect(RPCError.invalidRequest("y", reason: ErrorReason.emptyBatch).reason == "EMPTY_BATCH")
        #expect(RPCError.methodNotFound("a.b").code.rawValue == -32601)
        #expect(RPCError.methodNotFound("a.b").data?["method"] == "a.b")
        #expect(RPCError.methodNotFound("a.b").reason == "METHOD_NOT_FOUND")
        #expect(RPCError.invalidParams("z", field: "f").code.rawValue == -32602)
        #expect(RPCError.invalidParams("z", field: "f").field == "f")
        #expect(RPCError.invalidParams("z", field: nil).field == nil)
        #expect(RPCError.invalidParams("z", field: nil, reason: ErrorReason.invalidInputData).reason == "INVALID_INPUT_DATA")
        #expect(RPCError.internalError.code.rawValue == -32603)
        #expect(RPCError.internalError.message == "Internal error")
        #expect(RPCError.internalError.reason == "INTERNAL_ERROR")
    }

    @Test
    func encodesAsTheWireErrorObject() throws {
        let error = RPCError.invalidParams("bad", field: "password")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(RPCCoding.encode(error))) as? [String: Any]
        )
        #expect(object["code"] as? Int == -32602)
        #expect(object["message"] as? String == "Invalid params: bad")
        let data = try #require(object["data"] as? [String: Any])
        #expect(data["reason"] as? String == "INVALID_PARAMS")
        #expect(data["field"] as? String == "password")
    }

    @Test(arguments: [
        RPCError.parseError("p"),
        RPCError.methodNotFound("m"),
        RPCError.invalidParams("q", field: "a.b[0]"),
        RPCError.internalError,
        RPCError(code: .userNotFound, message: "No such user", reason: ErrorReason.userNotFound, extra: ["userID": "u", "n": 2]),
        RPCError(code: ErrorCode(rawValue: 1), message: "bare", data: nil),
    ])
    func roundTripsThroughJSON(error: RPCError) throws {
        let decoded = try RPCCoding.decode(RPCError.self, from: try RPCCoding.encode(error))
        #expect(decoded == error)
    }

    @Test
    func descriptionMentionsCodeReasonAndField() {
        #expect(RPCError.invalidParams("bad", field: "f").description == "Invalid params: bad (-32602 INVALID_PARAMS, field f)")
        #expect(RPCError(code: .internalError, message: "m", data: nil).description == "m (-32603)")
    }

    @Test
    func errorCodeCodesAsABareInteger() throws {
        #expect(String(decoding: try RPCCoding.encode(ErrorCode.unauthorized), as: UTF8.self) == "40101")
        #expect(try RPCCoding.decode(ErrorCode.self, from: Array("-32001".utf8)) == .tooManyRequests)
        #expect(ErrorCode.shuttingDown.description == "-32003")
    }

    @Test
    func transportCodesAreInTheImplementationDefinedRange() {
        for code in [ErrorCode.tooManyRequests, .tooManyConnections, .shuttingDown] {
            #expect((-32099 ... -32000).contains(code.rawValue))
        }
    }
}
