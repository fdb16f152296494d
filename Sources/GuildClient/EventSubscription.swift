import GuildProtocol

/// Why a subscription's event stream ended.
public enum SubscriptionEnd: Error, Sendable, Hashable {
    /// The subscriber fell too far behind; resubscribe with `since: lastSeq` to lose nothing.
    case lagged(lastSeq: Int64)
    /// The subscriber is a thing that was disabled (`thing.disable`): its connection is unbound. Once enabled, it
    /// authenticates again and resubscribes with `since: lastSeq`.
    case thingDisabled(lastSeq: Int64)
    /// The connection closed.
    case disconnected
}

/// An `events.subscribe` on one connection: its id, the log's head when it started, and its events in
/// sequence order. The stream ends with ``SubscriptionEnd`` when the daemon ends the subscription or the
/// connection closes, and normally after ``GuildClient/unsubscribe(_:)``.
public struct EventSubscription: Sendable {
    /// The subscription id.
    public var id: String
    /// The sequence number of the last event committed when the subscription started.
    public var seq: Int64
    /// The events.
    public var events: AsyncThrowingStream<GuildEvent, any Error>
}

extension GuildClient {
    /// Subscribes to group events on this connection (see `events.subscribe`).
    public func subscribe(
        groupIDs: [String]? = nil,
        buckets: [EventMethods.BucketRef]? = nil,
        thingIDs: [String]? = nil,
        kinds: [String]? = nil,
        since: Int64? = nil,
        all: Bool = false,
        bufferLimit: Int = 100_000
    ) async throws -> EventSubscription {
        let params = EventMethods.Subscribe.Params(
            groupIDs: groupIDs,
            buckets: buckets,
            thingIDs: thingIDs,
            kinds: kinds,
            since: since,
            all: all ? true : nil
        )
        let (events, continuation) = AsyncThrowingStream.makeStream(
            of: GuildEvent.self,
            throwing: (any Error).self,
            bufferingPolicy: .bufferingOldest(bufferLimit)
        )
        let bytes = try await self.callRaw(EventMethods.Subscribe.name, params: try RPCCoding.encode(params), routing: continuation)
        let result: EventMethods.Subscribe.Result
        do {
            result = try RPCCoding.decode(EventMethods.Subscribe.Result.self, from: bytes)
        } catch {
            throw GuildClientError.invalidResponse("\(EventMethods.Subscribe.name): \(error)")
        }
        return EventSubscription(id: result.subscription, seq: result.seq, events: events)
    }

    /// Ends a subscription; its event stream finishes.
    public func unsubscribe(_ subscription: EventSubscription) async throws {
        _ = try await self.call(EventMethods.Unsubscribe.self, .init(subscription: subscription.id))
        self.connection.finishRoute(subscription.id)
    }
}
