import GuildCore
import GuildProtocol
import NIOCore
import Synchronization

/// One `events.subscribe` on one connection: what it wants, what its principal may see, and where it is in
/// the log. Events are offered in sequence order; while the subscribe reply is not yet written, or while
/// missed events are replayed, live ones wait in a bounded buffer.
final class Subscription: Sendable, IndexedSubscriber {
    enum Phase {
        /// Registered, its starting point not read yet: events are kept raw, to be sorted by ``start(_:)``.
        case registering
        /// Started; waiting for the subscribe reply to be written (and for replay): events are buffered.
        case pending
        case live
        case ended
    }

    /// What the subscriber asked for: topics (nil: any, except those of areas whose events go only to
    /// subscriptions naming their topic, see ``EventAudience/namedTopicsOnly``) and kinds (nil: any).
    struct Filter: Sendable {
        var topics: Set<EventTopic>?
        var kinds: Set<String>?
        /// The topic prefixes (`area:`) of the areas whose events need their topic named (nil topics then
        /// exclude them).
        var namedOnlyPrefixes: [String] = Filter.namedOnlyPrefixes()

        /// Whether the subscriber wants an event of `topic` and `kind`; an admin watching everything (`admin`)
        /// wants every area's events.
        func accepts(topic: EventTopic, kind: String, admin: Bool) -> Bool {
            let topicWanted =
                if let topics = self.topics { topics.contains(topic) } else {
                    admin || !self.namedOnlyPrefixes.contains { topic.rawValue.hasPrefix($0) }
                }
            return topicWanted && (self.kinds?.contains(kind) ?? true)
        }

        static func namedOnlyPrefixes() -> [String] {
            EventAreas.areas.filter { EventAreas.audience(for: $0)?.namedTopicsOnly == true }.map { $0 + ":" }
        }
    }

    private struct State {
        var phase: Phase = .registering
        var raw: [EventEnvelope] = []
        var buffer: [EventEnvelope] = []
        /// Live events at or before this are covered by the starting snapshot (and replay).
        var head: Int64 = 0
        /// The topics the principal follows as of the last offered event (user subscriptions only), as their
        /// areas' audience rules keep them (for groups: the user's groups).
        var following: Set<EventTopic> = []
        /// The last sequence number written to the connection (or covered by the starting point).
        var lastSent: Int64 = 0
        /// Notifications written to the channel but not yet to the socket.
        var outstanding = 0
        /// Overflowed before going live: the end notice waits until the subscribe reply is out.
        var laggedBeforeLive = false
    }

    let id: String
    let connection: ConnectionState
    /// The user whose view this is; nil for an admin watching everything.
    let userID: String?
    let filter: Filter
    let since: Int64?
    let queueLimit: Int
    /// The installation the connection was bound to when subscribing (events for installations, see
    /// ``EventRouting/installations``).
    let installationID: String?
    /// Who to tell of deliveries, when the principal is one the receipts apply to.
    private let receipts: DeliveryReceipts?
    /// The hub's index marks the subscription with each batch it routes here (``IndexedSubscriber/routeMark``).
    /// Touched only under the hub's lock, which guards the index.
    nonisolated(unsafe) var routeMark: UInt64 = 0
    /// The hub's index keeps the subscription's place in the batch it routes here (``IndexedSubscriber/routeSlot``).
    nonisolated(unsafe) var routeSlot: Int = 0
    private let state: Mutex<State>
    /// `{"jsonrpc":"2.0","method":"events.event","params":{"subscription":"<id>"`: what precedes each event's tail.
    private let notificationHead: [UInt8]

    init(
        id: String,
        connection: ConnectionState,
        userID: String?,
        filter: Filter,
        since: Int64?,
        queueLimit: Int,
        receipts: DeliveryReceipts? = nil
    ) {
        self.id = id
        self.connection = connection
        self.userID = userID
        self.installationID = connection.installationID
        self.receipts = userID.flatMap { principal in receipts?.appliesTo(principal) == true ? receipts : nil }
        self.filter = filter
        self.since = since
        self.queueLimit = queueLimit
        self.state = Mutex(State())
        self.notificationHead = EventEnvelope.head(subscription: id)
    }

    var topicFilter: Set<EventTopic>? { self.filter.topics }

    var isEnded: Bool { self.state.withLock { $0.phase == .ended } }

    /// The log's head when the subscription started: later events are streamed.
    var head: Int64 { self.state.withLock { $0.head } }

    /// Sets the starting point read after registration: events offered meanwhile at or before its head
    /// are covered by it and dropped; later ones are sorted as if offered now.
    func start(_ snapshot: EventSnapshot) {
        self.state.withLock { state in
            state.head = snapshot.head
            state.following = snapshot.following
            state.lastSent = self.since ?? snapshot.head
            guard state.phase == .registering else { return }
            state.phase = .pending
            let raw = state.raw
            state.raw = []
            for envelope in raw where envelope.event.seq > state.head {
                if self.visible(envelope.event, following: &state.following) { state.buffer.append(envelope) }
            }
        }
    }

    /// Offers committed events (in sequence order). Returns true if the subscription just ended (lagged).
    func offer(_ events: [EventEnvelope]) -> Bool {
        let (batch, lagged): ([EventEnvelope], Bool) = self.state.withLock { state in
            guard state.phase != .ended else { return ([], false) }
            if state.phase == .registering {
                state.raw.append(contentsOf: events)
                if state.raw.count > self.queueLimit {
                    state.phase = .ended
                    state.raw = []
                    state.laggedBeforeLive = true
                }
                return ([], false)
            }
            let (deliverable, bytes) = self.deliverable(events, state: &state)
            guard !deliverable.isEmpty else { return ([], false) }
            switch state.phase {
            case .pending:
                state.buffer.append(contentsOf: deliverable)
                if state.buffer.count > self.queueLimit {
                    state.phase = .ended
                    state.buffer = []
                    state.laggedBeforeLive = true
                }
                return ([], false)
            case .live:
                if state.outstanding + deliverable.count > self.queueLimit
                    || self.connection.wouldExceedOutputLimit(adding: bytes)
                {
                    state.phase = .ended
                    return ([], true)
                }
                state.outstanding += deliverable.count
                state.lastSent = deliverable[deliverable.count - 1].event.seq
                return (deliverable, false)
            case .ended, .registering:
                return ([], false)
            }
        }
        if lagged {
            self.sendEnded(reason: SubscriptionEnded.lagged)
        } else if !batch.isEmpty {
            self.write(batch)
            self.report(batch.lazy.map { ($0.event.kind, $0.event.json) })
        }
        return lagged
    }

    /// The offered events after the starting point that the principal may see (the array itself when that is
    /// all of them, the usual case), and the bytes their notifications take.
    ///
    /// A commit's events mostly share one topic and kind (a burst of messages to one group), so what a topic and
    /// kind decide is worked out once per run of them rather than hashed again for every event.
    private func deliverable(_ events: [EventEnvelope], state: inout State) -> ([EventEnvelope], Int) {
        var kept: [EventEnvelope]? = nil
        var bytes = 0
        var memo: (topic: EventTopic, kind: String, wanted: Bool, following: Bool)? = nil
        for (position, envelope) in events.enumerated() {
            let committed = envelope.event
            var visible = committed.seq > state.head
            if visible {
                let known: (wanted: Bool, following: Bool)
                if let memo, memo.topic == committed.topic, memo.kind == committed.kind {
                    known = (memo.wanted, memo.following)
                } else {
                    known = (
                        self.filter.accepts(topic: committed.topic, kind: committed.kind, admin: self.userID == nil),
                        state.following.contains(committed.topic)
                    )
                }
                var following = known.following
                visible = self.visible(committed, wanted: known.wanted, following: &following, in: &state.following)
                memo = (committed.topic, committed.kind, known.wanted, following)
            }
            if visible {
                bytes += envelope.tail.count + self.notificationHead.count
                kept?.append(envelope)
            } else if kept == nil {
                kept = Array(events[..<position])
            }
        }
        return (kept ?? events, bytes)
    }

    /// Whether the principal may see `committed`, as its area's audience rule says, given whether the filter
    /// wants it and whether the principal followed its topic before it; updates the topics it follows as the
    /// event changes them (for groups: joins count before the event, so a joiner sees it; leaves after, so a
    /// leaver sees it too).
    private func visible(_ committed: CommittedEvent, wanted: Bool, following: inout Bool, in topics: inout Set<EventTopic>) -> Bool {
        guard let userID = self.userID else { return wanted }
        let before = following
        let followed = topics
        let entitled = committed.routing.admits(userID, installationID: self.installationID, following: &following) {
            followed.contains($0)
        }
        if following != before {
            if following { topics.insert(committed.topic) } else { topics.remove(committed.topic) }
        }
        return wanted && entitled
    }

    /// ``visible(_:wanted:following:in:)`` for one event on its own.
    private func visible(_ committed: CommittedEvent, following topics: inout Set<EventTopic>) -> Bool {
        var following = topics.contains(committed.topic)
        let wanted = self.filter.accepts(topic: committed.topic, kind: committed.kind, admin: self.userID == nil)
        return self.visible(committed, wanted: wanted, following: &following, in: &topics)
    }

    /// The topics the subscription follows, once it has started (nil while registering or once ended): the
    /// hub indexes it by them from then on.
    var startedFollowing: Set<EventTopic>? {
        self.state.withLock { state in
            state.phase == .pending || state.phase == .live ? state.following : nil
        }
    }

    /// After the subscribe reply is written: replays missed events (when `since` was given), then sends
    /// what was buffered meanwhile and goes live.
    func activate(events repository: any EventRepository, gate: ReplayGate) async {
        let head = self.head
        if let since = self.since, since < head {
            var cursor = since
            while cursor < head, self.state.withLock({ $0.phase == .pending }), self.connection.channel.isActive {
                guard
                    let page = try? await gate.withPermit({
                        try await repository.replay(
                            userID: self.userID,
                            installationID: self.installationID,
                            after: cursor,
                            through: head,
                            limit: 1000
                        )
                    }),
                    let last = page.last
                else { break }
                let wanted = page.filter { self.filter.accepts(topic: $0.topic, kind: $0.kind, admin: self.userID == nil) }
                if !wanted.isEmpty {
                    self.state.withLock { $0.lastSent = wanted[wanted.count - 1].seq }
                    // Wait for each page to reach the socket: a slow reader slows its own replay only.
                    try? await self.writeAndWait(wanted.map { EventEnvelope.tail(seq: $0.seq, json: $0.json) })
                    self.report(wanted.lazy.map { ($0.kind, $0.json) })
                }
                cursor = last.seq
                if page.count < 1000 { break }
            }
        }
        let (buffered, lagged): ([EventEnvelope], Bool) = self.state.withLock { state in
            if state.laggedBeforeLive { return ([], true) }
            guard state.phase == .pending else { return ([], false) }
            let buffered = state.buffer
            state.buffer = []
            state.phase = .live
            guard !buffered.isEmpty else { return ([], false) }
            state.outstanding += buffered.count
            state.lastSent = buffered[buffered.count - 1].event.seq
            return (buffered, false)
        }
        if lagged { self.sendEnded(reason: SubscriptionEnded.lagged) }
        if !buffered.isEmpty {
            self.write(buffered)
            self.report(buffered.lazy.map { ($0.event.kind, $0.event.json) })
        }
    }

    /// Ends the subscription without a notification (unsubscribe, connection closed).
    func cancel() {
        self.state.withLock { state in
            state.phase = .ended
            state.buffer = []
        }
    }

    /// Ends the subscription with an `events.ended` notification giving `reason` (unless it had ended).
    func end(reason: String) {
        let live = self.state.withLock { state in
            guard state.phase != .ended else { return false }
            state.phase = .ended
            state.buffer = []
            return true
        }
        if live { self.sendEnded(reason: reason) }
    }

    // MARK: - Writing

    /// Tells the receipts of the events of their kinds just written (nothing when none apply).
    private func report(_ events: some Sequence<(String, [UInt8])>) {
        guard let receipts = self.receipts, let principal = self.userID else { return }
        let reported = events.filter { receipts.kinds.contains($0.0) }.map { (kind: $0.0, json: $0.1) }
        if !reported.isEmpty { receipts.delivered(principal, reported) }
    }

    /// Appends the notifications for events, given their shared tails: only the head with this subscription's
    /// id is written per subscriber.
    private func appendNotifications(_ tails: some Sequence<[UInt8]>, to output: inout ByteBuffer) {
        self.notificationHead.withUnsafeBytes { head in
            for tail in tails {
                output.writeBytes(head)
                _ = tail.withUnsafeBytes { output.writeBytes($0) }
            }
        }
    }

    private func write(_ envelopes: [EventEnvelope]) {
        let count = envelopes.count
        EventMetrics.delivered(count)
        let capacity = envelopes.reduce(0) { $0 + $1.tail.count } + count * self.notificationHead.count
        self.connection.send(capacity: capacity, completion: { self.state.withLock { $0.outstanding -= count } }) { output in
            self.appendNotifications(envelopes.lazy.map(\.tail), to: &output)
        }
    }

    private func writeAndWait(_ events: [[UInt8]]) async throws {
        EventMetrics.delivered(events.count)
        var buffer = self.connection.channel.allocator.buffer(capacity: events.reduce(0) { $0 + $1.count + self.notificationHead.count })
        self.appendNotifications(events, to: &buffer)
        try await self.connection.send(buffer).get()
    }

    private func sendEnded(reason: String) {
        if reason == SubscriptionEnded.lagged { EventMetrics.lagging() }
        let lastSent = self.state.withLock { $0.lastSent }
        let params = (try? RPCCoding.encode(SubscriptionEnded(subscription: self.id, reason: reason, lastSeq: lastSent))) ?? []
        var bytes: [UInt8] = []
        RPCMessageWriter.appendRequest(id: nil, method: SubscriptionEnded.method, params: params, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        self.connection.send(self.connection.channel.allocator.buffer(bytes: bytes))
    }
}
