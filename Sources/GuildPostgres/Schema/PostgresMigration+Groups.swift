extension PostgresMigration {
    /// The groups area's migrations (Kii groups, IM groups, messages), from version 3: SQLite's final schema of
    /// the same tables (GuildStore's v2 to v6 and the IM groups area's own migrations), in snake_case.
    ///
    /// Where SQLite keeps a column in step with a trigger (the group's owner, a new member's read mark), the
    /// store's statements do it. Free text that may hold U+0000 (names, introductions, name cards, application
    /// messages), which PostgreSQL's text cannot, is stored as its UTF-8 bytes. The audience tables
    /// (`event_subject`, `event_excluded`, `membership_history`) have no foreign key to `event(seq)`: the log's
    /// rows are inserted when the writer's shared transaction commits (``PostgresLoggedEvent``).
    static let groups: [PostgresMigration] = [
        PostgresMigration(
            version: 3,
            name: "groups, memberships and who may replay their events",
            statements: [
                """
                CREATE TABLE "group" (
                    id text PRIMARY KEY,
                    name bytea NOT NULL,
                    type text NOT NULL,
                    member_count bigint NOT NULL DEFAULT 0 CHECK (member_count >= 0),
                    created_at bigint NOT NULL,
                    modified_at bigint NOT NULL,
                    owner_id text,
                    introduction bytea NOT NULL DEFAULT '',
                    notification bytea NOT NULL DEFAULT '',
                    face_url bytea NOT NULL DEFAULT '',
                    add_option text NOT NULL DEFAULT 'FORBID' CHECK (add_option IN ('FORBID', 'AUTH', 'ANY')),
                    all_muted boolean NOT NULL DEFAULT false,
                    custom text NOT NULL DEFAULT '{}',
                    attributes text NOT NULL DEFAULT '{}',
                    attributes_version bigint NOT NULL DEFAULT 0,
                    message_seq bigint NOT NULL DEFAULT 0,
                    at_all_seq bigint NOT NULL DEFAULT 0
                )
                """,
                // One row per member; the owner is the member whose role is 'owner', and the partial unique index
                // allows at most one. The identity is the join order members page in.
                """
                CREATE TABLE membership (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    group_id text NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
                    user_id text NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
                    role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
                    joined_at bigint NOT NULL,
                    name_card bytea NOT NULL DEFAULT '',
                    receive_option text NOT NULL DEFAULT 'RECEIVE'
                        CHECK (receive_option IN ('RECEIVE', 'NOT_RECEIVE', 'RECEIVE_NOT_NOTIFY')),
                    custom text NOT NULL DEFAULT '{}',
                    UNIQUE (group_id, user_id)
                )
                """,
                "CREATE UNIQUE INDEX membership_one_owner ON membership (group_id) WHERE role = 'owner'",
                "CREATE INDEX membership_group_order ON membership (group_id, id)",
                """
                CREATE INDEX membership_user_receive ON membership (user_id, id)
                INCLUDE (group_id, role, receive_option)
                """,
                """
                CREATE INDEX membership_not_receive ON membership (group_id, user_id)
                WHERE receive_option = 'NOT_RECEIVE'
                """,
                // The users an event names: they receive it even when not members.
                """
                CREATE TABLE event_subject (
                    user_id text NOT NULL,
                    seq bigint NOT NULL,
                    PRIMARY KEY (user_id, seq)
                )
                """,
                "CREATE INDEX event_subject_seq ON event_subject (seq)",
                // Members who receive no copy of an event (NOT_RECEIVE).
                """
                CREATE TABLE event_excluded (
                    seq bigint NOT NULL,
                    user_id text NOT NULL,
                    PRIMARY KEY (seq, user_id)
                )
                """,
                // Who was a member when: replay shows a user the events of groups they belonged to at the time.
                """
                CREATE TABLE membership_history (
                    group_id text NOT NULL,
                    user_id text NOT NULL,
                    from_seq bigint NOT NULL,
                    to_seq bigint
                )
                """,
                "CREATE INDEX membership_history_user ON membership_history (user_id, group_id, from_seq)",
                "CREATE INDEX membership_history_open ON membership_history (group_id, user_id) WHERE to_seq IS NULL",
            ]
        ),
        PostgresMigration(
            version: 4,
            name: "IM group mutes, applications and dismissed groups",
            statements: [
                // A mute belongs to the user in the group, not to the membership: it survives leaving and re-joining.
                """
                CREATE TABLE group_mute (
                    group_id text NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
                    user_id text NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
                    mute_until bigint NOT NULL,
                    PRIMARY KEY (group_id, user_id)
                )
                """,
                // Dismissed IM groups: their ids answer GROUP_DISMISSED and are never reused.
                """
                CREATE TABLE dismissed_group (
                    id text PRIMARY KEY,
                    type text NOT NULL,
                    dismissed_at bigint NOT NULL
                )
                """,
                """
                CREATE TABLE application (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    group_id text NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
                    from_user text NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
                    message bytea NOT NULL DEFAULT '',
                    status text NOT NULL CHECK (status IN ('PENDING', 'ACCEPTED', 'REFUSED')),
                    handled_by text,
                    handled_message bytea NOT NULL DEFAULT '',
                    created_at bigint NOT NULL,
                    handled_at bigint
                )
                """,
                "CREATE INDEX application_group ON application (group_id, id)",
                """
                CREATE UNIQUE INDEX application_one_pending ON application (group_id, from_user)
                WHERE status = 'PENDING'
                """,
            ]
        ),
        PostgresMigration(
            version: 5,
            name: "stored group messages and read marks",
            statements: [
                """
                CREATE TABLE group_message (
                    group_id text NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
                    seq bigint NOT NULL,
                    msg_id text NOT NULL,
                    sender text NOT NULL,
                    time bigint NOT NULL,
                    priority text NOT NULL,
                    body bytea,
                    event_seq bigint NOT NULL,
                    revoked_by text,
                    PRIMARY KEY (group_id, seq)
                )
                """,
                "CREATE UNIQUE INDEX group_message_id ON group_message (group_id, msg_id)",
                "CREATE INDEX group_message_time ON group_message (time)",
                // One read mark per membership, created with it (at the group's newest seq then) and gone with it.
                """
                CREATE TABLE group_read (
                    membership_id bigint PRIMARY KEY REFERENCES membership (id) ON DELETE CASCADE,
                    base_seq bigint NOT NULL,
                    read_seq bigint NOT NULL,
                    mention_seq bigint NOT NULL DEFAULT 0,
                    own_unread bigint NOT NULL DEFAULT 0
                )
                """,
                #"CREATE INDEX group_unread ON "group" (id) INCLUDE (type, message_seq, at_all_seq)"#,
            ]
        ),
        PostgresMigration(
            version: 6,
            name: "closed membership intervals by their end",
            statements: [
                // Pruning the event log forgets the intervals that closed before its oldest event: with this index
                // a range, without it a scan of every interval ever kept, once per pruning batch.
                "CREATE INDEX membership_history_closed ON membership_history (to_seq) WHERE to_seq IS NOT NULL"
            ]
        ),
    ]
}

/// Kii groups, IM groups and their messages: versions 3-9.
enum GroupsPostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.groups }
    static var eventArea: (any PostgresEventArea.Type)? { GroupPostgresEventArea.self }
}
