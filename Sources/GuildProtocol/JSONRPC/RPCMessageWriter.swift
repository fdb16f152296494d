import GuildJSON

/// Writes JSON-RPC messages as compact JSON text, without a trailing newline.
///
/// Results arrive already encoded, so a reply is assembled from its pieces without re-encoding, and an
/// event encoded once can be sent to many subscribers.
public enum RPCMessageWriter: Sendable {
    /// Appends a success response.
    @inlinable  // specialized at the call site: generic, appending the result costs a witness call per byte
    public static func appendResult(id: RequestID, result: some Collection<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        bytes.append(contentsOf: id.json.utf8)
        bytes.append(contentsOf: #","result":"#.utf8)
        bytes.append(contentsOf: result)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends an error response.
    public static func appendError(id: RequestID, error: RPCError, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        bytes.append(contentsOf: id.json.utf8)
        bytes.append(contentsOf: #","error":"#.utf8)
        bytes.append(contentsOf: (try? RPCCoding.encode(error)) ?? Array(#"{"code":-32603,"message":"Internal error"}"#.utf8))
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends a request (with an id) or a notification (`id` nil). `params` is JSON text or nil.
    @inlinable
    public static func appendRequest(
        id: RequestID?,
        method: String,
        params: (some Collection<UInt8>)?,
        to bytes: inout [UInt8]
    ) {
        bytes.append(contentsOf: #"{"jsonrpc":"2.0","#.utf8)
        if let id {
            bytes.append(contentsOf: #""id":"#.utf8)
            bytes.append(contentsOf: id.json.utf8)
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: #""method":"#.utf8)
        JSONText.appendString(method, to: &bytes)
        if let params {
            bytes.append(contentsOf: #","params":"#.utf8)
            bytes.append(contentsOf: params)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
