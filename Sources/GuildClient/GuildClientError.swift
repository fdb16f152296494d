/// A failure that is not an answer from the daemon: the connection could not be made, was lost, or
/// carried something unreadable. Errors the daemon answers with are thrown as `RPCError`.
public enum GuildClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Connecting to the socket failed.
    case connectFailed(path: String, reason: String)
    /// The connection closed before the reply arrived.
    case disconnected
    /// The reply could not be read as the expected type.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .connectFailed(let path, let reason): "cannot connect to \(path): \(reason)"
        case .disconnected: "the connection to guildd was closed"
        case .invalidResponse(let detail): "unreadable reply from guildd: \(detail)"
        }
    }
}
