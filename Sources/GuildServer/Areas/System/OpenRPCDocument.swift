import GuildJSON
import GuildProtocol

/// The wire contract, `protocol/openrpc.json`, embedded at build time and served by `rpc.discover`.
public enum OpenRPCDocument {
    /// The document as compact JSON (one line, as the wire needs).
    public static let compactJSON: [UInt8] = {
        guard let value = try? RPCCoding.decode(JSONValue.self, from: PackageResources.openrpc_json),
            let compact = try? RPCCoding.encode(value)
        else {
            preconditionFailure("protocol/openrpc.json is not valid JSON")
        }
        return compact
    }()
}
