import GuildCore
import Synchronization

/// Which things are online: a thing is online while a connection is bound to it with its token. Learns of
/// every binding (``SessionBindingObserver``) and of closed connections, and records each change of a
/// thing's status (`thingConnected`, `thingDisconnected`) in the store.
final class ThingPresence: SessionBindingObserver {
    private struct State {
        /// The thing each connection is bound to, and the connection (to unbind it when its thing is disabled).
        var bindings: [UInt64: (thingID: String, connection: ConnectionState)] = [:]
        /// Connections bound to each thing.
        var counts: [String: Int] = [:]
        /// Connections whose close is watched.
        var watched: Set<UInt64> = []
    }

    private let state = Mutex(State())
    private let things: ThingService

    init(things: ThingService) {
        self.things = things
    }

    /// Whether a connection is bound to the thing now.
    func isOnline(_ thingID: String) -> Bool {
        self.state.withLock { ($0.counts[thingID] ?? 0) > 0 }
    }

    func bound(_ session: ResolvedSession?, on connection: ConnectionState) {
        let thingID = session?.isThing == true ? session?.user.id : nil
        let (changed, watch): ([String], Bool) = self.state.withLock { state in
            let old = state.bindings[connection.id]?.thingID
            guard old != thingID else { return ([], false) }
            var changed: [String] = []
            if let old {
                state.counts[old, default: 1] -= 1
                if state.counts[old] == 0 {
                    state.counts[old] = nil
                    changed.append(old)
                }
            }
            state.bindings[connection.id] = thingID.map { ($0, connection) }
            if let thingID {
                state.counts[thingID, default: 0] += 1
                if state.counts[thingID] == 1 { changed.append(thingID) }
            }
            return (changed, thingID != nil && state.watched.insert(connection.id).inserted)
        }
        if watch {
            connection.whenClosed { [self] in
                self.bound(nil, on: connection)
                self.state.withLock { state in
                    state.watched.remove(connection.id)
                    state.bindings[connection.id] = nil
                }
            }
        }
        for thingID in changed {
            Task { try? await self.things.setOnline(thingID: thingID) { self.isOnline(thingID) } }
        }
    }

    /// Unbinds every connection bound to the thing (it was disabled): each goes on unbound, as if it had never
    /// authenticated, and the thing goes offline. Returns those connections.
    func unbind(thingID: String) -> [ConnectionState] {
        let connections = self.state.withLock { state in
            state.bindings.values.filter { $0.thingID == thingID }.map { $0.connection }
        }
        for connection in connections {
            if let binding = connection.session, binding.session.isThing, binding.session.user.id == thingID {
                connection.unbind(binding, observer: self)
            } else {
                // Bound to something else since: only the presence forgets the thing.
                self.bound(nil, on: connection)
            }
        }
        return connections
    }
}
