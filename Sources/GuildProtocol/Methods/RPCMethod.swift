/// A JSON-RPC method of Guild's wire contract: its name and the types of its params and result.
///
/// Both the daemon and the clients use these types, so a call site cannot disagree with the server about
/// shapes. Every method is also described in `protocol/openrpc.json`; a test checks that the two agree.
public protocol RPCMethod: Sendable {
    /// The `params` object.
    associatedtype Params: Codable & Sendable
    /// The `result` value.
    associatedtype Result: Codable & Sendable
    /// The dotted lowerCamel method name, e.g. `user.register`.
    static var name: String { get }
    /// Names for by-position params, in order. Empty: params are by name only.
    static var positionalParameters: [String] { get }
}

extension RPCMethod {
    public static var positionalParameters: [String] { [] }
}

/// The params of a method that takes none. Sent as `{}`; `[]` and an absent `params` are accepted too.
public struct NoParams: Codable, Hashable, Sendable {
    /// Creates empty params.
    public init() {}
}
