import GuildCore
import Logging
import NIOCore
import Synchronization

/// This host's writes to PostgreSQL: group commit over one or more write connections ("lanes", each a
/// ``PostgresWriterLane`` with a thread of its own).
///
/// The first lane is the event lane: any write may run there, and every write that appends events does, so the
/// log's lock (taken by a transaction's tail, held to its commit: the gap-free sequence) is only ever waited for
/// by one transaction of this host, as with one connection. The other lanes are quiet: they take the
/// writes of sites (``WriteSite``) that have committed ``PostgresWriteRoutes/quietAfter`` times in a row without
/// an event (a profile update, a login's tokens), and commit them beside the event lane instead of behind it. A
/// quiet lane never waits for the log's lock, so no wait can run in a circle through it; a write that appends
/// there after all is rolled back and runs again on the event lane, and its site is marked as appending. Writes
/// without a site (tools, tests) run on the event lane.
///
/// Ordering: two writes in flight at once were never ordered (a client's concurrent calls run as concurrent
/// tasks); a write is answered after its commit, so anything sent after that answer comes after it, on any lane.
public final class PostgresWriter: Sendable {
    private let lanes: [PostgresWriterLane]
    private let routes = PostgresWriteRoutes()
    private let nextQuietLane = Atomic<Int>(0)

    /// Creates a writer for `location` with `connections` write connections (at least one: the event lane); each
    /// connects when its first write comes.
    /// - Parameter connectTimeout: each connect's bound, nil for the location's (``PostgresLocation/connectTimeout``).
    /// - Parameter committed: called on a lane's thread after each of its commits, with the events it appended
    ///   and the records its operations changed, before the operations' callers hear of it.
    public init(
        location: PostgresLocation,
        maximumBatch: Int = 256,
        connectTimeout: TimeAmount? = nil,
        answerTimeout: TimeAmount = BlockingConnection.defaultAnswerTimeout,
        connections: Int = 1,
        logger: Logger,
        committed: @escaping @Sendable (_ events: [PostgresEvent], _ changed: Set<RecordKey>) -> Void = { _, _ in }
    ) {
        self.lanes = (0..<max(1, connections)).map { index in
            PostgresWriterLane(
                location: location,
                maximumBatch: maximumBatch,
                connectTimeout: connectTimeout,
                answerTimeout: answerTimeout,
                quiet: index > 0,
                logger: logger,
                committed: committed
            )
        }
    }

    /// Runs `work` in a shared transaction and returns its result once that transaction is committed: on a
    /// quiet lane when `site` is known to append no events, on the event lane otherwise.
    public func write<T: Sendable>(
        at site: WriteSite? = nil,
        _ work: @escaping @Sendable (PostgresWriteContext) throws -> T
    ) async throws -> T {
        guard let site, self.lanes.count > 1 else { return try await self.lanes[0].write(work) }
        if self.routes.isQuiet(site) {
            let lane = self.lanes[1 + self.nextQuietLane.add(1, ordering: .relaxed).oldValue % (self.lanes.count - 1)]
            do {
                return try await lane.write(work)
            } catch let redirect as PostgresWriteRedirect {
                if redirect.appends { self.routes.ran(site, appended: true) }
            }
        }
        let appended = AppendWitness()
        do {
            let value = try await self.lanes[0].write { context in
                defer { if context.appended { appended.saw() } }
                return try work(context)
            }
            self.routes.ran(site, appended: appended.seen)
            return value
        } catch {
            if appended.seen { self.routes.ran(site, appended: true) }
            throw error
        }
    }

    /// Transactions committed so far, and the operations they held, over every lane.
    public var statistics: (commits: Int, operations: Int) {
        self.lanes.reduce(into: (commits: 0, operations: 0)) { sum, lane in
            let counts = lane.statistics
            sum.commits += counts.commits
            sum.operations += counts.operations
        }
    }

    /// Per lane, the event lane first: writes queued and not yet taken into a batch.
    public var waitingPerLane: [Int] { self.lanes.map(\.waiting) }

    /// Per lane, the event lane first: transactions committed so far and the operations they held.
    public var laneStatistics: [(commits: Int, operations: Int)] { self.lanes.map(\.statistics) }

    /// Write sites learned so far, and how many of them run on the quiet lanes.
    public var learnedSites: (sites: Int, quiet: Int) { self.routes.counts }

    /// Whether the event lane's connection is open (false before the first write and while the database is away).
    public var isConnected: Bool { self.lanes[0].isConnected }

    /// Opens the event lane's connection now rather than at the first write, on the calling thread (which waits
    /// for the server): a store that starts connected reports so, and a wrong URL fails at start. Quiet lanes
    /// connect at their first write.
    public func connect() throws {
        try self.lanes[0].connect()
    }

    /// Fails writes from now on, closes every connection and stops the lanes' threads.
    public func close() async throws {
        for lane in self.lanes { try await lane.close() }
    }
}

/// Whether an operation appended, seen from the lane's thread and read by its caller after the commit.
private final class AppendWitness: Sendable {
    private let flag = Atomic<Bool>(false)

    func saw() { self.flag.store(true, ordering: .relaxed) }

    var seen: Bool { self.flag.load(ordering: .relaxed) }
}
