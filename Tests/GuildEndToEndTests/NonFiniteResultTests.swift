import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// A result JSON cannot hold (NaN, infinity) is an error, never `null` (before the fix: `sum [1e308, 1e308]` returned
/// `null`).
@Suite(.endToEnd)
struct NonFiniteResultTests {
    @Test func theWriterRefusesNonFiniteNumbers() throws {
        for value in [Double.infinity, -.infinity, .nan] {
            #expect(throws: EncodingError.self) { try RPCCoding.encode(JSONValue.double(value)) }
            #expect(throws: EncodingError.self) { try RPCCoding.encode(JSONValue.object(["a": [1, .double(value)]])) }
        }
        #expect(try RPCCoding.encode(JSONValue.double(1.5)) == Array("1.5".utf8))
    }

    @Test func overflowingSumAndSubtractAnswerNumberOutOfRange() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        defer { Task { await client.close() } }
        // The raw reply, so a `null` result cannot hide behind decoding.
        let calls: [(String, String)] = [
            ("sum", "[1e308,1e308]"), ("sum", "[-1e308,-1e308,-1e308]"), ("subtract", "[-1e308,1e308]"),
            ("subtract", #"{"minuend":1e308,"subtrahend":-1e308}"#),
        ]
        for (method, params) in calls {
            do {
                let result = try await client.callRaw(method, params: Array(params.utf8))
                Issue.record("\(method) \(params) answered \(String(decoding: result, as: UTF8.self))")
            } catch let error as RPCError {
                #expect(error.code == .invalidParams)
                #expect(error.reason == ErrorReason.numberOutOfRange)
            }
        }
        #expect(try await client.call("sum", params: [1, 2, 4]) == 7)
        #expect(try await client.call("sum", params: [1e308, -1e308]) == 0)
    }
}
