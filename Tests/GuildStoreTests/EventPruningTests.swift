import GRDB
import GuildCore
import GuildTestSupport
import Synchronization
import Testing

@testable import GuildStore

/// What pruning the event log leaves behind in the areas' tables, and how it finds what to forget.
struct EventPruningTests {
    /// The closed membership intervals before the oldest kept event go, open ones stay: replay still needs to
    /// know who is a member now, and nothing older than the log.
    @Test func pruningForgetsClosedMembershipIntervalsAndKeepsOpenOnes() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let groups = GroupService(store: temp.store)
        let (aliceUser, aliceSession) = try await users.register(identity: .init(username: "alice"), password: "pass", displayName: nil, fields: nil)
        let (bob, _) = try await users.register(identity: .init(username: "bob"), password: "pass", displayName: nil, fields: nil)
        let alice = caller(aliceSession, aliceUser)
        _ = try await groups.create(caller: alice, name: "G", groupID: "g", type: .basic, members: [])
        _ = try await groups.addMembers(caller: alice, groupID: "g", userIDs: [bob.id])
        _ = try await groups.removeMembers(caller: alice, groupID: "g", userIDs: [bob.id])
        _ = try await groups.addMembers(caller: alice, groupID: "g", userIDs: [bob.id])
        #expect(try await Self.intervals(temp.store) == ["\(aliceUser.id) open", "\(bob.id) closed", "\(bob.id) open"])

        // Keeping the newest event keeps the interval that closed before it.
        #expect(try await temp.store.pruneEvents(keepCount: 1, maxAgeMilliseconds: .max / 2, now: 0) > 0)
        #expect(try await Self.intervals(temp.store) == ["\(aliceUser.id) open", "\(bob.id) open"])
        // An empty log forgets every closed interval; new events still find the open ones.
        _ = try await groups.removeMembers(caller: alice, groupID: "g", userIDs: [bob.id])
        #expect(try await temp.store.pruneEvents(keepCount: 0, maxAgeMilliseconds: .max / 2, now: 0) > 0)
        #expect(try await Self.intervals(temp.store) == ["\(aliceUser.id) open"])
        #expect(try await temp.store.integrityCheck() == ["ok"])
    }

    /// Every statement an area runs when events are pruned walks an index: a full scan of a readers table or of
    /// the membership intervals, once per pruning batch of a million-event log, lifted every write's p99 3-9x
    /// in the two-hour soak (protocol/performance.md, 2026-11-29).
    @Test func everyAreasPruningSearchesAnIndex() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let statements = try await store.pool.write { db in
            let traced = TracedStatements()
            db.trace(options: .statement) { event in
                if case .statement(let statement) = event { traced.lines.withLock { $0.append(statement.sql) } }
            }
            defer { db.trace(options: []) { _ in } }
            for area in store.eventAreas.all { try area.pruned(in: db) }
            return traced.lines.withLock { $0 }
        }
        let deletes = statements.filter { $0.hasPrefix("DELETE") }
        #expect(deletes.count >= 3, "\(statements)")
        for sql in deletes {
            let plan = try await store.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)").map { $0["detail"] as String }
            }
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(sql): \(plan)")
        }
    }

    /// The membership intervals as "<userID> open|closed", in the order they were opened.
    private static func intervals(_ store: SQLiteStore) async throws -> [String] {
        try await store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT userID, toSeq IS NULL AS open FROM membership_history ORDER BY rowid")
                .map { "\($0["userID"] as String) \($0["open"] as Bool ? "open" : "closed")" }
        }
    }
}

/// The SQL of the statements a database runs while traced.
private final class TracedStatements: Sendable {
    let lines = Mutex<[String]>([])
}
