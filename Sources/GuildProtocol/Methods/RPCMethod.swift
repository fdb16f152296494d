/// A JSON-RPC method of Guild's wire contract: its name, the types of its params and result, who may call
/// it, and its description.
///
/// Both the daemon and the clients use these types, so a call site cannot disagree with the server about
/// shapes. Each method is declared once, here: `protocol/openrpc.json` is generated from the declarations
/// (``contract`` and the requirements below) by `guild-contract write`, and a test fails when the committed
/// document differs from what they generate.
public protocol RPCMethod: Sendable {
    /// The `params` object.
    associatedtype Params: Codable & Sendable
    /// The `result` value.
    associatedtype Result: Codable & Sendable
    /// The dotted lowerCamel method name, e.g. `user.register`.
    static var name: String { get }
    /// Who may call the method; the dispatcher enforces it and the document publishes it as `x-auth`.
    static var access: AccessRequirement { get }
    /// Whether a call may bind, rebind or unbind the connection's session. The dispatcher runs such calls in
    /// order with the connection's other requests.
    static var changesSession: Bool { get }
    /// The method's description for `protocol/openrpc.json`: summary, params, result, errors and an example.
    static var contract: MethodContract { get }
    /// Names for by-position params, in order. Empty: params are by name only.
    static var positionalParameters: [String] { get }
    /// Top-level params that only an admin peer may set to anything but the caller's own user id. The
    /// dispatcher refuses them for everyone else (`PERMISSION_DENIED`, `data.field`), before the method runs.
    static var adminOnlyParameters: [String] { get }
    /// The most items each list-valued (array or object) top-level param may hold; past it the call gets
    /// -32602 `TOO_MANY_ITEMS` with `data.field` and `data.limit`, before the params are decoded.
    static var itemLimits: [String: Int] { get }
    /// Whether a call may take long or read a lot (an integrity check, a large page, a query). Such calls run
    /// under the daemon's admission bounds and get -32004 `SERVER_BUSY` past them.
    static var isExpensive: Bool { get }
}

extension RPCMethod {
    public static var changesSession: Bool { false }
    public static var positionalParameters: [String] { [] }
    public static var adminOnlyParameters: [String] { [] }
    public static var itemLimits: [String: Int] { [:] }
    public static var isExpensive: Bool { false }
}

/// The params of a method that takes none. Sent as `{}`; `[]` and an absent `params` are accepted too.
public struct NoParams: Codable, Hashable, Sendable {
    /// Creates empty params.
    public init() {}
}
