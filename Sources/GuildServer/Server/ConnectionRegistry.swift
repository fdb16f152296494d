import Foundation
import GuildCore
import Synchronization

/// The open connections, for `system.status`, the connection limit, graceful shutdown and idle exit.
final class ConnectionRegistry: Sendable {
    /// The bounds on open connections.
    struct Limits: Sendable {
        /// Connections in all, for non-admin peers.
        var total: Int
        /// Connections per non-admin peer uid.
        var perUID: Int
        /// Extra connections beyond `total` that only admin peers may use.
        var adminReserve: Int
    }

    /// Which bound refused a connection.
    enum Scope: String, Sendable {
        case daemon
        case uid
    }

    /// What ``reserve(uid:isAdmin:limits:)`` gave.
    enum Reservation: Sendable, Equatable {
        case reserved(UInt64)
        case refused(Scope, limit: Int)
    }

    private struct State {
        var connections: [UInt64: ConnectionState] = [:]
        /// Open (or reserved) connections per peer uid.
        var perUID: [UInt32: Int] = [:]
        /// Reserved or open connections in all.
        var open = 0
        /// Open connections from other processes (the daemon's own health probes do not keep it busy).
        var external = 0
        var nextID: UInt64 = 1
        var idleSince: ContinuousClock.Instant?
        var draining = false
    }

    private let state = Mutex(State())

    /// Connections open now (the daemon's own health probes not counted).
    var count: Int { self.state.withLock { $0.external } }

    /// The daemon's own process id when its health probes (``GuildServer/probe(timeout:)``) should not count
    /// as connections; nil counts every connection (an in-process server whose clients share its pid).
    private let probePID: Int32?

    /// Creates a registry.
    init(probePID: Int32? = nil) {
        self.probePID = probePID
    }

    /// Whether the daemon itself is at the other end (a health probe).
    private func isOwn(_ connection: ConnectionState) -> Bool {
        self.probePID == connection.peer.pid
    }

    /// Since when no connection has been open; nil while one is.
    var idleSince: ContinuousClock.Instant? { self.state.withLock { $0.idleSince } }

    /// The server started serving: with no connection yet, it is idle from now.
    func serving() {
        self.state.withLock { state in
            if state.external == 0, state.idleSince == nil { state.idleSince = .now }
        }
    }

    /// Reserves a slot and an id for a new connection from `uid`, or says which bound is full. Admin peers
    /// are not bound per uid and may use `adminReserve` slots beyond the total, so an admin always gets in.
    /// Every reservation is given back by ``remove(_:uid:)``.
    func reserve(uid: UInt32, isAdmin: Bool, limits: Limits) -> Reservation {
        self.state.withLock { state in
            if isAdmin {
                guard state.open < limits.total + limits.adminReserve else {
                    return .refused(.daemon, limit: limits.total + limits.adminReserve)
                }
            } else {
                guard state.open < limits.total else { return .refused(.daemon, limit: limits.total) }
                guard state.perUID[uid, default: 0] < limits.perUID else { return .refused(.uid, limit: limits.perUID) }
            }
            state.open += 1
            state.perUID[uid, default: 0] += 1
            defer { state.nextID += 1 }
            return .reserved(state.nextID)
        }
    }

    /// Records an open connection. Returns false when the registry is draining (the server is stopping).
    func add(_ connection: ConnectionState) -> Bool {
        self.state.withLock { state in
            guard !state.draining else { return false }
            state.connections[connection.id] = connection
            if !self.isOwn(connection) {
                state.external += 1
                state.idleSince = nil
            }
            return true
        }
    }

    /// Forgets a closed connection (or a reservation that never became one) and gives its slot back.
    func remove(_ id: UInt64, uid: UInt32) {
        self.state.withLock { state in
            if let connection = state.connections.removeValue(forKey: id), !self.isOwn(connection) {
                state.external -= 1
                if state.external == 0 { state.idleSince = .now }
            }
            state.open -= 1
            let count = state.perUID[uid, default: 1] - 1
            state.perUID[uid] = count > 0 ? count : nil
        }
    }

    /// Asks every connection to finish its in-flight work and close; refuses new ones.
    func drainAll() {
        let connections = self.state.withLock { state in
            state.draining = true
            return Array(state.connections.values)
        }
        for connection in connections { connection.drain() }
    }
}
