/// One step of the PostgreSQL schema's history. Like SQLite's (`GuildStore.Migrations`), migrations describe
/// the past: plain SQL, never edited once released; a change is a new migration with the next version.
struct PostgresMigration: Sendable {
    /// Unique across every area: each area takes a block (event log 1, users 2, groups 3-9, objects 10-19,
    /// things 20-29, storage usage 30-39), in which its migrations go in order.
    var version: Int
    /// What it does, kept in `guild_schema_version`.
    var name: String
    /// The statements, run in order in one transaction.
    var statements: [String]

    /// Every migration this build knows, in the order they apply: each area's (``PostgresStore/areas``), an area
    /// after those it refers to. Areas after the event log and users keep theirs in a file of their own
    /// (`PostgresMigration+Groups.swift`, ...).
    static let all: [PostgresMigration] = PostgresStore.areas.flatMap { $0.migrations }

    /// The event log's and the users area's migrations.
    static let eventLogAndUsers: [PostgresMigration] = [
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
                    time bigint NOT NULL,
                    -- Who receives it live (EventRouting, JSON): any host's fan-out rebuilds it from here.
                    routing text NOT NULL DEFAULT '{}'
                )
                """,
                "CREATE INDEX event_time ON event (time)",
            ]
        ),
        PostgresMigration(
            version: 2,
            name: "users and tokens",
            statements: [
                // SQLite's `user` table (GuildStore v1). Login names and emails are unique compared as SQLite's
                // COLLATE NOCASE compares them, folding ASCII letters only: `lower(... COLLATE "C")`. The
                // display name is free text that may hold U+0000, which PostgreSQL's text cannot: its UTF-8 bytes.
                """
                CREATE TABLE "user" (
                    id text PRIMARY KEY,
                    username text,
                    email text,
                    phone text,
                    display_name bytea,
                    fields text NOT NULL DEFAULT '{}',
                    password_hash text,
                    is_pseudo boolean NOT NULL,
                    created_at bigint NOT NULL,
                    modified_at bigint NOT NULL,
                    CHECK (is_pseudo OR password_hash IS NOT NULL),
                    CHECK (is_pseudo OR username IS NOT NULL OR email IS NOT NULL OR phone IS NOT NULL)
                )
                """,
                // The index names are what a unique violation reports: the store maps them to the field.
                #"CREATE UNIQUE INDEX user_username ON "user" (lower(username COLLATE "C"))"#,
                #"CREATE UNIQUE INDEX user_email ON "user" (lower(email COLLATE "C"))"#,
                #"CREATE UNIQUE INDEX user_phone ON "user" (phone)"#,
                // The SHA-256 of each access and refresh token, never the token.
                """
                CREATE TABLE token (
                    hash bytea PRIMARY KEY CHECK (octet_length(hash) = 32),
                    user_id text NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
                    kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
                    family text NOT NULL,
                    expires_at bigint,
                    created_at bigint NOT NULL
                )
                """,
                "CREATE INDEX token_family ON token (family)",
                "CREATE INDEX token_user_id ON token (user_id)",
            ]
        ),
    ]
}

/// The event log and the users area: versions 1 and 2 (users' events are not in the log).
enum UsersPostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.eventLogAndUsers }
}
