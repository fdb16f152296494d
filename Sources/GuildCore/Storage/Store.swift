/// Guild's storage, as the domain rules see it: transactions (``Transaction``) that hand out every feature
/// area can use, and the event log they append to (``EventRepository``), so that one change may span areas (deleting a user ends their group memberships in the same
/// transaction). SQLite (`GuildStore.SQLiteStore`) is the embedded implementation; another engine implements
/// the same protocols.
///
/// Bodies are synchronous and run on the store's own threads, never on Swift's cooperative pool (see
/// protocol/liveness.md): a store that talks to a server waits for its replies on those threads.
public protocol Store: EventRepository {
    /// Runs `body` as one atomic operation of a durable transaction and returns once it is committed. Events
    /// appended in it reach subscribers after the commit; if `body` throws, nothing it did is kept. `site` is
    /// where the write comes from (see ``WriteSite``); callers use ``write(_:fileID:line:)``, which fills it in.
    func write<T: Sendable>(at site: WriteSite, _ body: @escaping @Sendable (any Transaction) throws -> T) async throws -> T
    /// Runs `body` on a read-only snapshot (writes through it fail).
    func read<T: Sendable>(_ body: @escaping @Sendable (any Transaction) throws -> T) async throws -> T
    /// Opens a connection for reads that run at once on the calling thread (see ``ImmediateReader``); nil when
    /// this store cannot read without waiting, and callers use ``read(_:)``.
    func makeImmediateReader() throws -> (any ImmediateReader)?
    /// Calls `hook` after each commit, before any caller of ``write(_:)`` hears of it, with the records the
    /// commit changed (see ``Transaction/changed(_:)``). Per-area caches drop their stale entries here.
    func afterCommit(_ hook: @escaping @Sendable (_ changed: Set<RecordKey>) -> Void)
    /// Checks the storage's own integrity (SQLite: `PRAGMA integrity_check`); `["ok"]` when sound.
    func integrityCheck() async throws -> [String]
    /// The heap the engine's library holds in this process (SQLite: its page caches, statements and
    /// connections), in bytes; nil for an engine that keeps its memory in a server of its own.
    var engineHeapBytes: Int64? { get }
    /// Whether daemons on other hosts may write to this store at once (PostgreSQL); false for a store only this
    /// process opens (SQLite), whose every other host is a past run of this one.
    var isSharedByHosts: Bool { get }
}

extension Store {
    /// Runs `body` as one atomic operation of a durable transaction and returns once it is committed (see
    /// ``write(at:_:)``), from the caller's site.
    public func write<T: Sendable>(
        _ body: @escaping @Sendable (any Transaction) throws -> T,
        fileID: String = #fileID,
        line: Int = #line
    ) async throws -> T {
        try await self.write(at: WriteSite(fileID: fileID, line: line), body)
    }

    /// None by default: the engine's memory is not in this process.
    public var engineHeapBytes: Int64? { nil }

    /// Not shared by default: only this process opens the store.
    public var isSharedByHosts: Bool { false }
}

/// One transaction (or read-only snapshot) of a ``Store``: each feature area's records and queries, and the
/// event log every area appends to.
///
/// Each area declares its own protocol of records and queries next to its rules (``UserRecords``,
/// ``GroupRecords``, ...), and each engine implements it in a small type in that area's folder
/// (`SQLiteUserRecords`, `PostgresUserRecords`). A transaction hands them out (`tx.users`, `tx.groups`), all
/// over the same transaction, so one change may span areas (deleting a user ends their group memberships).
public protocol Transaction: AnyObject, EventRecords {
    /// Users, their sessions and tokens.
    var users: any UserRecords { get }
    /// Groups, their owners and members (every group type).
    var groups: any GroupRecords { get }
    /// What only IM groups have: roles, mutes, join applications, attributes, tombstones.
    var imGroups: any IMGroupRecords { get }
    /// Group messages and read marks.
    var messages: any GroupMessageRecords { get }
    /// Buckets, objects and their ACLs.
    var objects: any ObjectRecords { get }
    /// Things, owners, commands, states, triggers and installations.
    var things: any ThingRecords { get }
    /// Storage usage per owner and area.
    var storage: any StorageRecords { get }

    /// Names a record the operation changed, for the store's after-commit hooks (``Store/afterCommit(_:)``).
    /// Naming one that did not change is harmless: a cache only drops an entry.
    func changed(_ record: RecordKey)
}

/// A record a transaction changed, named by its area and id (e.g. `.init(area: "group", id: "g1")`).
public struct RecordKey: Hashable, Sendable {
    /// The area's name for the kind of record.
    public var area: String
    /// The record's id within the area.
    public var id: String

    /// Names a record.
    public init(area: String, id: String) {
        self.area = area
        self.id = id
    }
}
