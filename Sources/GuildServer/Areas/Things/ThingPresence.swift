import GuildCore
import Synchronization

/// Which things are bound on this host: a thing is online while a connection to any host is bound to it with
/// its token. Learns of every binding (``SessionBindingObserver``) and of closed connections, and records each
/// change of a thing's binding here in the store (``ThingService/setOnline(thingID:_:)``), which says whether
/// the thing is online anywhere (`thingConnected`, `thingDisconnected`).
final class ThingPresence: SessionBindingObserver {
    private struct State {
        /// The thing each connection is bound to, and the connection (to unbind it when its thing is disabled).
        var bindings: [UInt64: (thingID: String, connection: ConnectionState)] = [:]
        /// Connections bound to each thing.
        var counts: [String: Int] = [:]
        /// Connections whose close is watched.
        var watched: Set<UInt64> = []
        /// Things whose binding here could not be recorded (the database was out of reach), to try again: at most
        /// one entry per thing.
        var unrecorded: Set<String> = []
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

    /// The things a connection is bound to now, in byte order (the order in which reaping hosts lock things'
    /// rows, `COLLATE "C"`), so that recording them again never takes two rows' locks in the opposite order.
    func boundThingIDs() -> [String] {
        self.state.withLock { Array($0.counts.keys) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    @discardableResult
    func bound(_ session: ResolvedSession?, on connection: ConnectionState) -> Task<Void, Never>? {
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
        guard !changed.isEmpty else { return nil }
        return Task { await self.record(changed) }
    }

    /// Records the things' bindings here. Each write reads the binding when it runs, so writes racing each other
    /// settle on the last state; one that fails (the database out of reach) is kept to be tried again
    /// (``recordAgain()``).
    private func record(_ thingIDs: some Sequence<String>) async {
        for thingID in thingIDs {
            do {
                try await self.things.setOnline(thingID: thingID) { self.isOnline(thingID) }
            } catch {
                self.state.withLock { _ = $0.unrecorded.insert(thingID) }
            }
        }
    }

    /// Tries again the things whose last recording failed (the lease runner calls this at each renewal).
    func recordAgain() async {
        let thingIDs = self.state.withLock { state in
            defer { state.unrecorded = [] }
            return state.unrecorded
        }
        await self.record(thingIDs.sorted())
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
