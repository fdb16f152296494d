extension PostgresMigration {
    /// The objects area's migrations (buckets, objects, their field index, ACLs), versions 10-19: SQLite's final
    /// schema of the same tables (GuildStore's `objects-1` and `objects-2`), in snake_case.
    ///
    /// SQLite's rowids, which order a bucket's objects and page through them, are identity columns (never reused).
    /// An object's JSON is stored as the same compact UTF-8 text SQLite stores, in `bytea`: its strings may hold
    /// U+0000, which PostgreSQL's text cannot; so may the paths and strings of the field index.
    ///
    /// SQLite keeps each indexed scalar in one column of no type and orders it as SQLite orders values: within a
    /// kind, numbers by value (integers and decimals alike), strings by their UTF-8 bytes, those holding U+0000
    /// (which SQLite stores as BLOBs) after all others. Here a scalar is spread over columns that order the same
    /// way: `number` (Booleans as 0 and 1, numbers exactly), `has_nul` (whether a string holds U+0000) and
    /// `string`; `double_value` keeps a decimal as it was written, to hand it back in a cursor. Strings and paths
    /// may be longer than a B-tree entry can hold, so the index holds their first bytes.
    ///
    /// The audience tables have no foreign key to `event(seq)`: the log's rows are inserted when the writer's
    /// shared transaction commits (``PostgresLoggedEvent``).
    static let objects: [PostgresMigration] = [
        PostgresMigration(
            version: 10,
            name: "buckets, objects, their field index, ACL entries and who may replay object events",
            statements: [
                """
                CREATE TABLE bucket (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    scope text NOT NULL,
                    name text NOT NULL,
                    creator text,
                    created bigint NOT NULL,
                    UNIQUE (scope, name)
                )
                """,
                """
                CREATE TABLE object (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    bucket_id bigint NOT NULL REFERENCES bucket (id) ON DELETE CASCADE,
                    object_id text NOT NULL,
                    fields bytea NOT NULL,
                    version bigint NOT NULL,
                    created bigint NOT NULL,
                    modified bigint NOT NULL,
                    owner text,
                    -- false while the object's default ACL applies (not stored as entries).
                    acl_written boolean NOT NULL DEFAULT false,
                    UNIQUE (bucket_id, object_id)
                )
                """,
                // Every scalar of every object by dotted path: kind 1 Boolean, 2 number, 3 string.
                """
                CREATE TABLE object_field (
                    bucket_id bigint NOT NULL,
                    path bytea NOT NULL,
                    kind smallint NOT NULL CHECK (kind IN (1, 2, 3)),
                    number numeric NOT NULL DEFAULT 0,
                    double_value double precision,
                    has_nul boolean NOT NULL DEFAULT false,
                    string bytea NOT NULL DEFAULT '',
                    object_row bigint NOT NULL REFERENCES object (id) ON DELETE CASCADE
                )
                """,
                """
                CREATE INDEX object_field_value ON object_field (
                    bucket_id, substring(path FROM 1 FOR 256), kind, number, substring(string FROM 1 FOR 256),
                    object_row
                )
                """,
                "CREATE INDEX object_field_object ON object_field (object_row)",
                // bucket_id 0: the scope's own entries; object_id '': the bucket's.
                """
                CREATE TABLE acl_entry (
                    scope text NOT NULL,
                    bucket_id bigint NOT NULL,
                    object_id text NOT NULL,
                    action text NOT NULL,
                    subject text NOT NULL,
                    fixed boolean NOT NULL,
                    PRIMARY KEY (scope, bucket_id, object_id, action, subject)
                )
                """,
                "CREATE INDEX acl_entry_subject ON acl_entry (subject)",
                // Scopes whose ACL was written (until then their defaults apply).
                "CREATE TABLE acl_scope (scope text PRIMARY KEY)",
                // Who could read what an object event is about, for replay, in seq order as `objects-2` left them.
                """
                CREATE TABLE object_event_reader (
                    seq bigint NOT NULL,
                    user_id text NOT NULL,
                    PRIMARY KEY (seq, user_id)
                )
                """,
                """
                CREATE TABLE object_event_group (
                    seq bigint NOT NULL,
                    group_id text NOT NULL,
                    PRIMARY KEY (seq, group_id)
                )
                """,
            ]
        )
    ]
}

/// Buckets, objects and ACLs: versions 10-19.
enum ObjectsPostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.objects }
    static var eventArea: (any PostgresEventArea.Type)? { ObjectPostgresEventArea.self }
}
