/// A stored event as replay returns it.
public struct StoredEvent: Sendable {
    public var seq: Int64
    public var kind: GroupEvent.Kind
    public var groupID: String
    /// `{"seq":...,...}`, exactly as subscribers receive it.
    public var json: [UInt8]
    /// The end of its `events.event` notification (see ``EventBody/notificationTail(seq:json:)``).
    public var notificationTail: [UInt8] { EventBody.notificationTail(seq: self.seq, json: self.json) }

    /// Creates a stored event.
    public init(seq: Int64, kind: GroupEvent.Kind, groupID: String, json: [UInt8]) {
        self.seq = seq
        self.kind = kind
        self.groupID = groupID
        self.json = json
    }
}

/// Where a subscription starts: the log's head and oldest kept event, and the user's groups at that head.
public struct EventSnapshot: Sendable {
    /// The sequence number of the last committed event (0 when none yet).
    public var head: Int64
    /// The oldest event still kept (head + 1 when none is kept).
    public var oldest: Int64
    /// The groups the user was a member of at `head`.
    public var groups: Set<String>

    /// Creates a snapshot.
    public init(head: Int64, oldest: Int64, groups: Set<String>) {
        self.head = head
        self.oldest = oldest
        self.groups = groups
    }
}

/// The event log as subscriptions read it.
public protocol EventRepository: Sendable {
    /// The head, the oldest kept event, and a user's groups, read in one snapshot.
    func eventSnapshot(userID: String?) async throws -> EventSnapshot
    /// Events after `after` up to `through`, in order, at most `limit`: for a user, only those they are
    /// entitled to (a member of the group at the time, or named); for nil, all.
    func replay(userID: String?, after: Int64, through: Int64, limit: Int) async throws -> [StoredEvent]
    /// Drops events beyond the newest `keepCount` or older than `maxAgeMilliseconds`; returns how many.
    func pruneEvents(keepCount: Int64, maxAgeMilliseconds: Int64, now: Int64) async throws -> Int
    /// Delivers committed events to `sink`, in commit order, after each commit.
    func onCommittedEvents(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void)
}
