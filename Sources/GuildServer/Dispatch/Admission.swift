import GuildJSON
import GuildProtocol
import Synchronization

/// Admission control for expensive methods (``RPCMethod/isExpensive``): how many may run at once on one
/// connection, for one principal, and in the whole daemon.
///
/// A call past a bound is refused at once with -32004 `SERVER_BUSY` (`data.scope`, `data.limit`); nothing
/// queues. The daemon-wide bound is kept below the store's reader count, so cheap reads always find a free
/// reader however many expensive calls run (see protocol/liveness.md).
final class Admission: Sendable {
    /// The bounds.
    struct Limits: Sendable, Hashable {
        /// Expensive calls running at once on one connection.
        var perConnection: Int
        /// Expensive calls running at once for one principal (a user, or a peer uid without a session).
        var perPrincipal: Int
        /// Expensive calls running at once in the daemon.
        var daemon: Int
    }

    /// What a permit was counted against, to give back.
    struct Permit: Sendable {
        fileprivate let connection: UInt64
        fileprivate let principal: String
    }

    private struct State {
        var daemon = 0
        var connections: [UInt64: Int] = [:]
        var principals: [String: Int] = [:]
    }

    let limits: Limits
    private let state = Mutex(State())

    init(limits: Limits) {
        self.limits = limits
    }

    /// Expensive calls running now.
    var running: Int { self.state.withLock { $0.daemon } }

    /// Takes a permit for an expensive call, or throws `SERVER_BUSY` naming the bound that is full.
    func admit(connection: UInt64, principal: String) throws(RPCError) -> Permit {
        let refusal: (scope: String, limit: Int)? = self.state.withLock { state in
            if state.connections[connection, default: 0] >= self.limits.perConnection {
                return ("connection", self.limits.perConnection)
            }
            if state.principals[principal, default: 0] >= self.limits.perPrincipal {
                return ("principal", self.limits.perPrincipal)
            }
            if state.daemon >= self.limits.daemon {
                return ("daemon", self.limits.daemon)
            }
            state.daemon += 1
            state.connections[connection, default: 0] += 1
            state.principals[principal, default: 0] += 1
            return nil
        }
        if let refusal {
            throw RPCError(
                code: .serverBusy,
                message: "too many expensive calls running (\(refusal.scope) limit \(refusal.limit)); retry later",
                reason: ErrorReason.serverBusy,
                extra: ["scope": .string(refusal.scope), "limit": .int(Int64(refusal.limit))]
            )
        }
        return Permit(connection: connection, principal: principal)
    }

    /// Gives a permit back.
    func release(_ permit: Permit) {
        self.state.withLock { state in
            state.daemon -= 1
            Self.decrement(&state.connections, permit.connection)
            Self.decrement(&state.principals, permit.principal)
        }
    }

    private static func decrement<Key: Hashable>(_ counts: inout [Key: Int], _ key: Key) {
        let value = counts[key, default: 1] - 1
        counts[key] = value > 0 ? value : nil
    }
}
