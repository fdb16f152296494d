/// Who may call a method: declared by each method type (``RPCMethod/access``), enforced by the dispatcher,
/// published as `x-auth` in `protocol/openrpc.json`.
public enum AccessRequirement: String, Sendable, CaseIterable {
    /// Anyone who can connect.
    case anyone
    /// A connection bound to a valid session, or an admin.
    case session
    /// An admin connection (peer uid root or a configured admin uid).
    case admin
}
