import GuildJSON

/// Writes JSON-RPC messages as compact JSON text, without a trailing newline.
///
/// Results arrive already encoded, so a reply is assembled from its pieces without re-encoding, and an
/// event encoded once can be sent to many subscribers.
public enum RPCMessageWriter: Sendable {
    /// Appends a success response.
    @inlinable  // specialized at the call site: generic, appending the result costs a witness call per byte
    public static func appendResult(id: RequestID, result: some Collection<UInt8>, to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + result.count + id.json.utf8.count + 32)
        Self.appendLiteral(#"{"jsonrpc":"2.0","id":"#, to: &bytes)
        Self.append(id.json, to: &bytes)
        Self.appendLiteral(#","result":"#, to: &bytes)
        bytes.append(contentsOf: result)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends an error response.
    public static func appendError(id: RequestID, error: RPCError, to bytes: inout [UInt8]) {
        Self.appendLiteral(#"{"jsonrpc":"2.0","id":"#, to: &bytes)
        Self.append(id.json, to: &bytes)
        Self.appendLiteral(#","error":"#, to: &bytes)
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
        Self.appendLiteral(#"{"jsonrpc":"2.0","#, to: &bytes)
        if let id {
            Self.appendLiteral(#""id":"#, to: &bytes)
            Self.append(id.json, to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        Self.appendLiteral(#""method":"#, to: &bytes)
        JSONText.appendString(method, to: &bytes)
        if let params {
            Self.appendLiteral(#","params":"#, to: &bytes)
            bytes.append(contentsOf: params)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends one request line (each ending in `\n`) per element of `params`, with the ids `firstID`,
    /// `firstID + 1`, …: each line is what ``appendRequest(id:method:params:to:)`` writes for its call, with
    /// the method's JSON text escaped once for all of them and the ids written without making strings.
    public static func appendRequestLines(firstID: Int, method: String, params: [[UInt8]?], to bytes: inout [UInt8]) {
        var methodText: [UInt8] = []
        Self.appendLiteral(#","method":"#, to: &methodText)
        JSONText.appendString(method, to: &methodText)
        bytes.reserveCapacity(bytes.count + params.count * (methodText.count + 40))
        for (offset, params) in params.enumerated() {
            Self.appendLiteral(#"{"jsonrpc":"2.0","id":"#, to: &bytes)
            JSONText.appendInt64(Int64(firstID + offset), to: &bytes)
            bytes.append(contentsOf: methodText)
            if let params {
                Self.appendLiteral(#","params":"#, to: &bytes)
                bytes.append(contentsOf: params)
            }
            Self.appendLiteral("}\n", to: &bytes)
        }
    }

    /// Appends fixed text with one copy (appending a `String.UTF8View` goes element by element).
    @inlinable
    static func appendLiteral(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a string's UTF-8 with one copy when it is stored contiguously (a native string always is).
    @inlinable
    static func append(_ text: String, to bytes: inout [UInt8]) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: text.utf8) }
    }
}
