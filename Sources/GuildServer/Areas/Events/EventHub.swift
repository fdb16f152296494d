import GuildCore
import GuildProtocol
import Synchronization

/// Fans committed events out to subscriptions. The store calls ``publish(_:)`` after each commit, in
/// sequence order; the hub wraps each event in its notification envelope once, finds the subscriptions its
/// topic concerns through ``SubscriptionIndex``, and each of those filters, checks visibility, and writes to
/// its connection.
final class EventHub: Sendable {
    private struct State {
        var subscriptions: [String: Subscription] = [:]
        var index = SubscriptionIndex<Subscription>()
        var nextID: UInt64 = 1
    }

    private let repository: any EventRepository
    private let state = Mutex(State())
    let queueLimit: Int
    let maximumPerConnection: Int
    /// Replay pages read at once, daemon-wide (two: cheap reads keep the other readers).
    private let replays = ReplayGate(permits: 2)
    /// Who to tell of deliveries (see ``DeliveryReceipts``).
    private let receipts: DeliveryReceipts?

    init(repository: any EventRepository, queueLimit: Int, maximumPerConnection: Int, receipts: DeliveryReceipts? = nil) {
        self.repository = repository
        self.receipts = receipts
        self.queueLimit = queueLimit
        self.maximumPerConnection = maximumPerConnection
        repository.onCommittedEvents { [weak self] events in self?.publish(events) }
    }

    /// Subscriptions open now.
    var count: Int { self.state.withLock { $0.subscriptions.count } }

    /// Registers a subscription. It is registered first (so it is offered every event committed from now
    /// on), then its starting point is read; events offered in between that the starting point already
    /// covers are dropped. No lock is held while reading.
    func subscribe(connection: ConnectionState, userID: String?, filter: Subscription.Filter, since: Int64?) async throws -> Subscription {
        let subscription = try self.state.withLock { state in
            let open = connection.subscriptionCount
            guard open < self.maximumPerConnection else {
                throw GuildError(.tooManySubscriptions, "this connection already has \(open) subscriptions")
            }
            let id = "s\(state.nextID)"
            state.nextID += 1
            let subscription = Subscription(
                id: id,
                connection: connection,
                userID: userID,
                filter: filter,
                since: since,
                queueLimit: self.queueLimit,
                receipts: self.receipts
            )
            state.subscriptions[id] = subscription
            state.index.add(subscription)
            connection.subscriptionsChanged(by: 1)
            return subscription
        }
        do {
            let snapshot = try await self.repository.eventSnapshot(userID: userID)
            if let since {
                guard since >= 0, since <= snapshot.head else {
                    throw GuildError.invalidInput("since must be between 0 and the log's head (\(snapshot.head))", field: "since")
                }
                if since < snapshot.oldest - 1 {
                    var error = GuildError(
                        .cursorExpired,
                        "events after \(since) are no longer kept; the oldest kept is \(snapshot.oldest)",
                        field: "since"
                    )
                    error.details = ["oldestSeq": snapshot.oldest]
                    throw error
                }
            }
            subscription.start(snapshot)
            return subscription
        } catch {
            self.remove(subscription.id)
            subscription.cancel()
            throw error
        }
    }

    /// Replays and goes live (after the subscribe reply is written).
    func activate(_ subscription: Subscription) async {
        await subscription.activate(events: self.repository, gate: self.replays)
        if subscription.isEnded { self.remove(subscription.id) }
    }

    /// Ends a subscription of `connection`; false when it has none by that id.
    func unsubscribe(_ id: String, connection: ConnectionState) -> Bool {
        let removed = self.state.withLock { state -> Subscription? in
            guard let subscription = state.subscriptions[id], subscription.connection === connection else { return nil }
            state.subscriptions[id] = nil
            state.index.remove(subscription)
            connection.subscriptionsChanged(by: -1)
            return subscription
        }
        removed?.cancel()
        return removed != nil
    }

    /// Ends every subscription of a closed connection.
    func connectionClosed(_ connection: ConnectionState) {
        for subscription in self.remove(of: connection, where: { _ in true }) { subscription.cancel() }
    }

    /// Ends the subscriptions `connection` holds as `principal`, each with an `events.ended` notification
    /// giving `reason` (a thing disabled: it may no longer receive its commands).
    func end(subscriptionsOf connection: ConnectionState, principal: String, reason: String) {
        for subscription in self.remove(of: connection, where: { $0.userID == principal }) { subscription.end(reason: reason) }
    }

    /// Takes the subscriptions of `connection` that `include` picks out of the hub (and out of the connection's
    /// count); returns them, for the caller to cancel or end.
    private func remove(of connection: ConnectionState, where include: (Subscription) -> Bool) -> [Subscription] {
        let removed = self.state.withLock { state in
            let ids = state.subscriptions.filter { $0.value.connection === connection && include($0.value) }.map(\.key)
            let removed = ids.compactMap { state.subscriptions.removeValue(forKey: $0) }
            for subscription in removed { state.index.remove(subscription) }
            return removed
        }
        connection.subscriptionsChanged(by: -removed.count)
        return removed
    }

    /// Offers committed events to the subscriptions they concern, each event wrapped once.
    func publish(_ events: [CommittedEvent]) {
        let envelopes = events.map(EventEnvelope.init)
        let concerned = self.state.withLock { $0.index.route(events) }
        var lagged: [String] = []
        for (subscription, positions) in concerned {
            let offered = positions.map { $0.map { envelopes[$0] } } ?? envelopes
            if subscription.offer(offered) { lagged.append(subscription.id) }
        }
        for id in lagged { self.remove(id) }
    }

    private func remove(_ id: String) {
        let removed = self.state.withLock { state -> Subscription? in
            guard let subscription = state.subscriptions.removeValue(forKey: id) else { return nil }
            state.index.remove(subscription)
            return subscription
        }
        removed?.connection.subscriptionsChanged(by: -1)
    }
}
