import GuildCore
import GuildPostgres
import GuildTestSupport
import PostgresNIO
import Testing

/// Who may replay a batch's events is recorded at its tail, one statement per table (``PostgresAudienceRows``):
/// the rows must be those that recording each event on its own gave, whatever the batch opens, closes, reopens
/// or rolls back.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresAudienceRowsTests {
    struct Refused: Error {}

    /// Appends a group event of group `g` to the log through the store's transaction, as the group records do;
    /// then throws if `failing`.
    static func append(
        _ kind: GroupEvent.Kind,
        users: [String],
        joined: [String] = [],
        left: [String] = [],
        excluded: [String] = [],
        failing: Bool = false
    ) -> @Sendable (PostgresWriteContext) throws -> Int64 {
        { context in
            let event = GroupEvent(
                kind: kind,
                groupID: "g",
                actor: nil,
                users: users,
                time: 1_700_000_000_000,
                joined: joined,
                left: left,
                excluded: excluded
            )
            let seq = try PostgresTransaction(context).append(event)
            if failing { throw Refused() }
            return seq
        }
    }

    @Test func aBatchRecordsTheAudienceEachEventWouldHaveAlone() async throws {
        try await TestPostgres.withDatabase { location in
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            _ = try await TestPostgres.blocking { try PostgresMigrator.migrate(connection) }
            let writer = PostgresWriterTests.writer(location)
            // Before the batch, in a commit of its own: u5 joins (seq 1), an interval the batch closes.
            #expect(try await writer.write(Self.append(.memberEnter, users: ["u5"], joined: ["u5"])) == -1, "the first of its transaction")
            let outcomes = try await PostgresWriterTests.oneBatch(
                writer,
                [
                    // seq 2: u1 joins.
                    Self.append(.memberEnter, users: ["u1"], joined: ["u1"]),
                    // seq 3: u1 leaves (the batch's own interval, 2-3) and u5 (opened before the batch, closed by it).
                    Self.append(.memberLeave, users: ["u1", "u5"], left: ["u1", "u5"]),
                    // seq 4: both join again: open intervals the close of u5 above must not touch.
                    Self.append(.memberEnter, users: ["u1", "u5"], joined: ["u1", "u5"]),
                    // Fails after appending: its number and all it recorded are given back.
                    Self.append(.memberKicked, users: ["u5", "u7"], left: ["u5"], excluded: ["u9"], failing: true),
                    // seq 5: a message naming u4, skipping u3 (rows in event_subject and event_excluded).
                    Self.append(.newMessage, users: ["u4"], excluded: ["u3"]),
                    // seq 6: u1 is kicked: closes the interval opened at 4.
                    Self.append(.memberKicked, users: ["u1"], left: ["u1"]),
                ]
            )
            // Each event stands by its place in the batch until the tail numbers it from the head (1): the failed
            // operation's place is taken by the next.
            #expect(outcomes.map { try? $0.get() } == [-1, -2, -3, nil, -4, -5])
            #expect(throws: Refused.self) { try outcomes[3].get() }
            let (intervals, subjects, excluded) = try await TestPostgres.blocking {
                (
                    try connection.query(
                        "SELECT user_id, from_seq, to_seq FROM membership_history WHERE group_id = 'g' ORDER BY from_seq, user_id"
                    ).map { row in
                        let (user, from, to) = try row.decode((String, Int64, Int64?).self)
                        return "\(user) \(from)-\(to.map { String($0) } ?? "")"
                    },
                    try connection.query("SELECT user_id, seq FROM event_subject ORDER BY seq, user_id")
                        .map { try $0.decode((String, Int64).self) }.map { "\($0.0)@\($0.1)" },
                    try connection.query("SELECT user_id, seq FROM event_excluded ORDER BY seq, user_id")
                        .map { try $0.decode((String, Int64).self) }.map { "\($0.0)@\($0.1)" }
                )
            }
            #expect(intervals == ["u5 1-3", "u1 2-3", "u1 4-6", "u5 4-"])
            #expect(subjects == ["u5@1", "u1@2", "u1@3", "u5@3", "u1@4", "u5@4", "u4@5", "u1@6"])
            #expect(excluded == ["u3@5"], "the failed write's row (u9) was given back with its number")
            try await writer.close()
        }
    }
}
