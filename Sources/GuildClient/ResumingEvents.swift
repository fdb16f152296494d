import GuildProtocol

/// Group events that survive disconnects, daemon restarts and lag: when the connection drops or the
/// daemon ends the subscription, the iterator reconnects (with backoff), authenticates again, and
/// resubscribes with `since` set to the last event it returned. Each event is returned once, in order.
///
/// ```swift
/// for try await event in GuildClient.events(path: socket, accessToken: token) {
///     print(event.seq, event.kind, event.groupID ?? event.topic ?? "")
/// }
/// ```
///
/// Iteration ends only by throwing: an error the daemon answers with (a revoked token, `CURSOR_EXPIRED`
/// when the log no longer holds what was missed), or cancellation.
public struct ResumingEvents: AsyncSequence, Sendable {
    public typealias Element = GuildEvent

    let path: String
    let accessToken: String?
    let groupIDs: [String]?
    let buckets: [EventMethods.BucketRef]?
    let kinds: [String]?
    let since: Int64?
    let all: Bool
    let maximumBackoff: Duration

    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self, lastSeq: self.since)
    }

    /// Reconnects and resumes as needed.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: ResumingEvents
        var lastSeq: Int64?
        var client: GuildClient?
        var events: AsyncThrowingStream<GuildEvent, any Error>.AsyncIterator?
        var backoff: Duration = .milliseconds(50)

        public mutating func next() async throws -> GuildEvent? {
            while true {
                try Task.checkCancellation()
                if self.events == nil {
                    do {
                        try await self.connect()
                        self.backoff = .milliseconds(50)
                    } catch let error as RPCError {
                        throw error
                    } catch {
                        await self.client?.close()
                        self.client = nil
                        try await Task.sleep(for: self.backoff)
                        self.backoff = Swift.min(self.backoff * 2, self.sequence.maximumBackoff)
                        continue
                    }
                }
                do {
                    if let event = try await self.events?.next(isolation: #isolation) {
                        if let last = self.lastSeq, event.seq <= last { continue }
                        self.lastSeq = event.seq
                        return event
                    }
                } catch {
                    // Lagged or disconnected: resubscribe from the last event returned.
                }
                self.events = nil
                await self.client?.close()
                self.client = nil
            }
        }

        private mutating func connect() async throws {
            let client = try await GuildClient.connect(path: self.sequence.path)
            self.client = client
            if let token = self.sequence.accessToken {
                _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: token))
            }
            let subscription = try await client.subscribe(
                groupIDs: self.sequence.groupIDs,
                buckets: self.sequence.buckets,
                kinds: self.sequence.kinds,
                since: self.lastSeq,
                all: self.sequence.all
            )
            if self.lastSeq == nil { self.lastSeq = subscription.seq }
            self.events = subscription.events.makeAsyncIterator()
        }
    }
}

extension GuildClient {
    /// Events that resume by themselves across disconnects, restarts and lag (see ``ResumingEvents``).
    /// - Parameters:
    ///   - accessToken: the session to subscribe as; nil for an admin peer with `all`.
    ///   - buckets: buckets to watch (object events reach only subscriptions that name their bucket).
    ///   - since: replay events after this sequence number first; nil to start at the present.
    public static func events(
        path: String = GuildClient.defaultSocketPath(),
        accessToken: String?,
        groupIDs: [String]? = nil,
        buckets: [EventMethods.BucketRef]? = nil,
        kinds: [String]? = nil,
        since: Int64? = nil,
        all: Bool = false,
        maximumBackoff: Duration = .seconds(2)
    ) -> ResumingEvents {
        ResumingEvents(
            path: path,
            accessToken: accessToken,
            groupIDs: groupIDs,
            buckets: buckets,
            kinds: kinds,
            since: since,
            all: all,
            maximumBackoff: maximumBackoff
        )
    }
}

/// An iterator belongs to the task iterating it.
@available(*, unavailable)
extension ResumingEvents.Iterator: Sendable {}
