/// One step of the PostgreSQL schema's history. Like SQLite's (`GuildStore.Migrations`), migrations describe
/// the past: plain SQL, never edited once released; a change is a new migration with the next version.
struct PostgresMigration: Sendable {
    /// 1, 2, 3, ... in order, with no gap.
    var version: Int
    /// What it does, kept in `guild_schema_version`.
    var name: String
    /// The statements, run in order in one transaction.
    var statements: [String]

    /// Every migration this build knows, in order.
    static let all: [PostgresMigration] = [
        PostgresMigration(
            version: 1,
            name: "the event log: one global sequence, its head row, and the events",
            statements: [
                // The head row is the sequence's only writer: each transaction that appends takes its row lock
                // and holds it to commit, so sequence numbers become visible in order (protocol/postgresql.md).
                """
                CREATE TABLE event_head (
                    id boolean PRIMARY KEY DEFAULT true CHECK (id),
                    seq bigint NOT NULL CHECK (seq >= 0)
                )
                """,
                "INSERT INTO event_head (seq) VALUES (0)",
                """
                CREATE TABLE event (
                    seq bigint PRIMARY KEY,
                    topic text NOT NULL,
                    kind text NOT NULL,
                    audience text NOT NULL,
                    body bytea NOT NULL,
                    time bigint NOT NULL
                )
                """,
                "CREATE INDEX event_time ON event (time)",
            ]
        )
    ]
}
