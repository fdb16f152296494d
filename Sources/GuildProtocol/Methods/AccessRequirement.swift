/// Who may call a method: declared by each method type (``RPCMethod/access``), enforced by the dispatcher,
/// published as `x-auth` in `protocol/openrpc.json`.
public enum AccessRequirement: String, Sendable, CaseIterable {
    /// Anyone who can connect.
    case anyone
    /// A connection bound to a valid user session, or an admin.
    case session
    /// A connection bound to a valid user or thing session (a thing's token, see `thing.onboard`), or an admin.
    case principal
    /// An admin connection (peer uid root or a configured admin uid).
    case admin
}
