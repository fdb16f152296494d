extension PostgresMigration {
    /// The things area's migrations (things, owners, commands, states, installations), versions 20-29: SQLite's
    /// schema of the same tables (GuildStore's `things-1` and `things-2`; `things-3` and `things-4` are 21 and
    /// 22), in snake_case.
    ///
    /// SQLite's rowids, which order owners, commands, states and triggers and page through them, are identity
    /// columns. JSON (properties, command requests and results, states, triggers) is stored as the same compact
    /// UTF-8 text SQLite stores, in `bytea`: its strings may hold U+0000, which PostgreSQL's text cannot, and so
    /// may an installation's registration id. The audience tables have no foreign key to `event(seq)`: the log's
    /// rows are inserted when the writer's shared transaction commits (``PostgresLoggedEvent``).
    static let things: [PostgresMigration] = [
        PostgresMigration(
            version: 20,
            name: "things, tokens, owners, commands, states, installations, triggers and who may replay their events",
            statements: [
                """
                CREATE TABLE thing (
                    thing_id text PRIMARY KEY,
                    vendor_thing_id text NOT NULL UNIQUE,
                    password_hash text NOT NULL,
                    thing_type text,
                    firmware_version text,
                    properties bytea NOT NULL,
                    created bigint NOT NULL,
                    modified bigint NOT NULL,
                    online boolean NOT NULL DEFAULT false,
                    online_modified bigint,
                    has_state boolean NOT NULL DEFAULT false
                )
                """,
                "CREATE INDEX thing_online ON thing (online) WHERE online",
                // The SHA-256 of each access token of a thing, never the token.
                """
                CREATE TABLE thing_token (
                    hash bytea PRIMARY KEY CHECK (octet_length(hash) = 32),
                    thing_id text NOT NULL REFERENCES thing (thing_id) ON DELETE CASCADE,
                    created_at bigint NOT NULL
                )
                """,
                "CREATE INDEX thing_token_thing ON thing_token (thing_id)",
                // Owners are users or groups, with no foreign key (as in SQLite): deleting one removes its ownerships.
                """
                CREATE TABLE thing_owner (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    thing_id text NOT NULL REFERENCES thing (thing_id) ON DELETE CASCADE,
                    kind text NOT NULL CHECK (kind IN ('user', 'group')),
                    owner_id text NOT NULL,
                    added bigint NOT NULL,
                    UNIQUE (thing_id, kind, owner_id)
                )
                """,
                "CREATE INDEX thing_owner_owner ON thing_owner (kind, owner_id)",
                // The request holds the actions, schema, schemaVersion, title, description and metadata.
                """
                CREATE TABLE thing_command (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    command_id text NOT NULL UNIQUE,
                    thing_id text NOT NULL REFERENCES thing (thing_id) ON DELETE CASCADE,
                    issuer text NOT NULL,
                    request bytea NOT NULL,
                    sender_user_id text,
                    sender_installation_id text,
                    sender_is_pseudo boolean NOT NULL,
                    action_results bytea,
                    state text NOT NULL CHECK (state IN ('SENDING', 'DELIVERED', 'DONE', 'INCOMPLETE')),
                    fired_by_trigger_id text,
                    created bigint NOT NULL,
                    modified bigint NOT NULL
                )
                """,
                "CREATE INDEX thing_command_thing ON thing_command (thing_id, id)",
                """
                CREATE TABLE thing_state (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    thing_id text NOT NULL REFERENCES thing (thing_id) ON DELETE CASCADE,
                    timestamp bigint NOT NULL,
                    state bytea NOT NULL
                )
                """,
                "CREATE INDEX thing_state_thing ON thing_state (thing_id, id)",
                """
                CREATE TABLE installation (
                    installation_id text PRIMARY KEY,
                    user_id text NOT NULL,
                    device_type text NOT NULL,
                    registration_id bytea,
                    development boolean NOT NULL,
                    created bigint NOT NULL
                )
                """,
                "CREATE INDEX installation_user ON installation (user_id, device_type, registration_id)",
                """
                CREATE TABLE thing_trigger (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    trigger_id text NOT NULL UNIQUE,
                    thing_id text NOT NULL REFERENCES thing (thing_id) ON DELETE CASCADE,
                    condition bytea NOT NULL,
                    command bytea NOT NULL,
                    enabled boolean NOT NULL,
                    last_value boolean NOT NULL,
                    creator text,
                    created bigint NOT NULL
                )
                """,
                "CREATE INDEX thing_trigger_thing ON thing_trigger (thing_id, id)",
                // Who may replay a thing event: principals (users, things, `installation:<id>`) and owner groups,
                // keyed in seq order as SQLite's `things-2` left them.
                """
                CREATE TABLE thing_event_reader (
                    seq bigint NOT NULL,
                    principal text NOT NULL,
                    PRIMARY KEY (seq, principal)
                )
                """,
                """
                CREATE TABLE thing_event_group (
                    seq bigint NOT NULL,
                    group_id text NOT NULL,
                    PRIMARY KEY (seq, group_id)
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 21,
            name: "state upload time (SQLite's things-3)",
            statements: [
                // Rows from before count as uploaded now (as on SQLite); a default computed once, so no rewrite.
                "ALTER TABLE thing_state ADD COLUMN uploaded bigint NOT NULL DEFAULT (extract(epoch FROM now()) * 1000)::bigint",
                "ALTER TABLE thing_state ALTER COLUMN uploaded DROP DEFAULT",
            ]
        ),
        // SQLite's `things-4`: the bounds on a thing's pending commands and on its triggers' firings per second
        // count through these, without reading the thing's history.
        PostgresMigration(
            version: 22,
            name: "pending and fired commands indexed",
            statements: [
                "CREATE INDEX thing_command_pending ON thing_command (thing_id) WHERE state IN ('SENDING', 'DELIVERED')",
                "CREATE INDEX thing_command_fired ON thing_command (thing_id, created) WHERE fired_by_trigger_id IS NOT NULL",
            ]
        ),
        // SQLite's `things-5`: thing.disable / thing.enable.
        PostgresMigration(
            version: 23,
            name: "disabled things",
            statements: ["ALTER TABLE thing ADD COLUMN disabled boolean NOT NULL DEFAULT false"]
        ),
        // SQLite's `things-6`: Thing-IF's trigger model (predicate, action, title, description), a schedule's next
        // due time indexed for the runner, and each trigger's firings. Existing triggers become STATES /
        // CONDITION_FALSE_TO_TRUE / COMMAND, as they behaved.
        PostgresMigration(
            version: 24,
            name: "trigger predicates, actions, schedules and results",
            statements: [
                """
                ALTER TABLE thing_trigger ADD COLUMN predicate bytea,
                    ADD COLUMN action text NOT NULL DEFAULT 'COMMAND' CHECK (action IN ('COMMAND', 'NOTIFY')),
                    ADD COLUMN parameters bytea, ADD COLUMN title text, ADD COLUMN description text,
                    ADD COLUMN next_fire bigint, ADD COLUMN modified bigint
                """,
                """
                UPDATE thing_trigger SET modified = created, predicate = convert_to(
                    '{"eventSource":"STATES","condition":' || convert_from(condition, 'UTF8') || ',"triggersWhen":"CONDITION_FALSE_TO_TRUE"}',
                    'UTF8')
                """,
                """
                ALTER TABLE thing_trigger ALTER COLUMN predicate SET NOT NULL, ALTER COLUMN modified SET NOT NULL,
                    ALTER COLUMN action DROP DEFAULT, ALTER COLUMN command DROP NOT NULL, DROP COLUMN condition,
                    ADD CHECK ((action = 'COMMAND') = (command IS NOT NULL))
                """,
                "CREATE INDEX thing_trigger_due ON thing_trigger (next_fire) WHERE next_fire IS NOT NULL AND enabled",
                """
                CREATE TABLE thing_trigger_result (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    trigger_id text NOT NULL REFERENCES thing_trigger (trigger_id) ON DELETE CASCADE,
                    thing_id text NOT NULL,
                    fired_at bigint NOT NULL,
                    due_at bigint,
                    cause text NOT NULL,
                    outcome text NOT NULL,
                    command_id text,
                    reason text
                )
                """,
                "CREATE INDEX thing_trigger_result_trigger ON thing_trigger_result (trigger_id, id)",
            ]
        ),
        // SQLite's `things-7`: each thing's trigger revision, set anew by every change to its triggers (an upload
        // compares its state with the one before it instead of storing each condition's last value); each
        // firing's ordinal among its trigger's.
        PostgresMigration(
            version: 25,
            name: "trigger revisions and firing ordinals",
            statements: [
                "ALTER TABLE thing ADD COLUMN trigger_revision bigint NOT NULL DEFAULT 0",
                "ALTER TABLE thing_trigger DROP COLUMN last_value",
                "ALTER TABLE thing_trigger_result ADD COLUMN ordinal bigint NOT NULL DEFAULT 0",
            ]
        ),
        // SQLite's `things-8`: each state's totals per minute of its timestamp, for grouped and aggregated
        // history, filled from the states kept; and the states by time.
        PostgresMigration(
            version: 26,
            name: "state rollups per minute",
            statements: [
                "CREATE INDEX thing_state_time ON thing_state (thing_id, timestamp)",
                """
                CREATE TABLE thing_state_rollup (
                    thing_id text NOT NULL REFERENCES thing (thing_id) ON DELETE CASCADE,
                    field text NOT NULL,
                    minute bigint NOT NULL,
                    count bigint NOT NULL,
                    numbers bigint NOT NULL,
                    decimals bigint NOT NULL,
                    sum double precision NOT NULL,
                    minimum double precision,
                    maximum double precision,
                    stale boolean NOT NULL DEFAULT false,
                    PRIMARY KEY (thing_id, field, minute)
                )
                """,
                "CREATE INDEX thing_state_rollup_stale ON thing_state_rollup (thing_id, minute) WHERE stale",
                "CREATE TABLE thing_state_rollup_mode (kept boolean NOT NULL)",
                "INSERT INTO thing_state_rollup_mode (kept) VALUES (true)",
                PostgresMigration.stateRollupBackfill,
            ]
        ),
        // SQLite's `things-9`: presence per host (a row per thing and host while a connection to that host is
        // bound to the thing) and each host's lease, by which a dead host's rows are told from a live one's.
        PostgresMigration(
            version: 27,
            name: "thing presence per host, and host leases",
            statements: [
                """
                CREATE TABLE thing_presence (
                    thing_id text NOT NULL REFERENCES thing (thing_id) ON DELETE CASCADE,
                    host_id text NOT NULL,
                    since bigint NOT NULL,
                    PRIMARY KEY (thing_id, host_id)
                )
                """,
                "CREATE INDEX thing_presence_host ON thing_presence (host_id, thing_id)",
                "CREATE TABLE presence_host (host_id text PRIMARY KEY, name text NOT NULL, expires bigint NOT NULL)",
                "CREATE INDEX presence_host_name ON presence_host (name)",
            ]
        ),
    ]

    /// The rollups of the states stored (version 26), as SQLite's `things-8` fills them. The states' JSON text is
    /// read as `jsonb`, which cannot hold U+0000: escaped backslashes are spelled `\u005c` first, so that each
    /// `\u0000` left is a NUL's escape, which becomes U+FFFD's. A top-level name holding U+FFFD in a state that
    /// had a NUL is left out, as names holding a NUL are (`StateRollup.isRolledUp`).
    static let stateRollupBackfill = #"""
        WITH s AS (
            SELECT thing_id, state, CASE WHEN timestamp >= 0 THEN timestamp / 60000 ELSE (timestamp + 1) / 60000 - 1 END AS minute,
                strpos(convert_from(state, 'UTF8'), '\u0000') > 0 AS had_nul
            FROM thing_state
        )
        INSERT INTO thing_state_rollup (thing_id, field, minute, count, numbers, decimals, sum, minimum, maximum)
        SELECT thing_id, '', minute, count(*), 0, 0, 0, NULL, NULL FROM s GROUP BY thing_id, minute
        UNION ALL
        SELECT s.thing_id, j.key, s.minute, count(*),
            count(*) FILTER (WHERE jsonb_typeof(j.value) = 'number'),
            count(*) FILTER (
                WHERE CASE WHEN jsonb_typeof(j.value) = 'number' THEN j.value::numeric <> trunc(j.value::numeric) ELSE false END
            ),
            coalesce(sum(CASE WHEN jsonb_typeof(j.value) = 'number' THEN j.value::double precision END), 0),
            min(CASE WHEN jsonb_typeof(j.value) = 'number' THEN j.value::double precision END),
            max(CASE WHEN jsonb_typeof(j.value) = 'number' THEN j.value::double precision END)
        FROM s, jsonb_each(replace(replace(convert_from(s.state, 'UTF8'), '\\', '\u005c'), '\u0000', '\ufffd')::jsonb) j
        WHERE j.key <> '' AND NOT (s.had_nul AND strpos(j.key, U&'\FFFD') > 0)
        GROUP BY s.thing_id, j.key, s.minute
        """#
}

/// Things, commands, states, triggers and installations: versions 20-29.
enum ThingsPostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.things }
    static var eventArea: (any PostgresEventArea.Type)? { ThingPostgresEventArea.self }
}
