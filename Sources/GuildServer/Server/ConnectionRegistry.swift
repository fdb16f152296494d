import Foundation
import Synchronization

/// The open connections, for `system.status`, the connection limit, graceful shutdown and idle exit.
final class ConnectionRegistry: Sendable {
    private struct State {
        var connections: [UInt64: ConnectionState] = [:]
        var nextID: UInt64 = 1
        var idleSince: ContinuousClock.Instant?
        var draining = false
    }

    private let state = Mutex(State())

    /// Connections open now.
    var count: Int { self.state.withLock { $0.connections.count } }

    /// Since when no connection has been open; nil while one is.
    var idleSince: ContinuousClock.Instant? { self.state.withLock { $0.idleSince } }

    /// The server started serving: with no connection yet, it is idle from now.
    func serving() {
        self.state.withLock { state in
            if state.connections.isEmpty, state.idleSince == nil { state.idleSince = .now }
        }
    }

    /// Reserves an id for a new connection, or nil when `limit` connections are open.
    func reserve(limit: Int) -> UInt64? {
        self.state.withLock { state in
            guard state.connections.count < limit else { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Records an open connection. Returns false when the registry is draining (the server is stopping).
    func add(_ connection: ConnectionState) -> Bool {
        self.state.withLock { state in
            guard !state.draining else { return false }
            state.connections[connection.id] = connection
            state.idleSince = nil
            return true
        }
    }

    /// Forgets a closed connection.
    func remove(_ id: UInt64) {
        self.state.withLock { state in
            state.connections[id] = nil
            if state.connections.isEmpty { state.idleSince = .now }
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
