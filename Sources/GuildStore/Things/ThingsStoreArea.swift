import GRDB

/// The things area in SQLite: things and their tokens, owners, commands, states, installations, triggers, and
/// who may replay thing events. Read and written through `SQLiteThingRecords`.
struct ThingsStoreArea: SQLiteStoreArea {
    func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("things-1-things-commands-states") { db in
            try db.execute(
                sql: """
                    CREATE TABLE thing (
                        thingID TEXT PRIMARY KEY NOT NULL,
                        vendorThingID TEXT NOT NULL UNIQUE,
                        passwordHash TEXT NOT NULL,
                        thingType TEXT,
                        firmwareVersion TEXT,
                        properties BLOB NOT NULL,
                        created INTEGER NOT NULL,
                        modified INTEGER NOT NULL,
                        online INTEGER NOT NULL DEFAULT 0,
                        onlineModified INTEGER,
                        hasState INTEGER NOT NULL DEFAULT 0
                    ) WITHOUT ROWID;
                    CREATE INDEX thing_online ON thing (online) WHERE online = 1;
                    CREATE TABLE thing_token (
                        hash BLOB PRIMARY KEY NOT NULL CHECK (length(hash) = 32),
                        thingID TEXT NOT NULL REFERENCES thing(thingID) ON DELETE CASCADE,
                        createdAt INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX thing_token_thing ON thing_token (thingID);
                    CREATE TABLE thing_owner (
                        id INTEGER PRIMARY KEY,
                        thingID TEXT NOT NULL REFERENCES thing(thingID) ON DELETE CASCADE,
                        kind TEXT NOT NULL CHECK (kind IN ('user', 'group')),
                        ownerID TEXT NOT NULL,
                        added INTEGER NOT NULL,
                        UNIQUE (thingID, kind, ownerID)
                    );
                    CREATE INDEX thing_owner_owner ON thing_owner (kind, ownerID);
                    CREATE TABLE thing_command (
                        id INTEGER PRIMARY KEY,
                        commandID TEXT NOT NULL UNIQUE,
                        thingID TEXT NOT NULL REFERENCES thing(thingID) ON DELETE CASCADE,
                        issuer TEXT NOT NULL,
                        -- actions, schema, schemaVersion, title, description, metadata
                        request BLOB NOT NULL,
                        senderUserID TEXT,
                        senderInstallationID TEXT,
                        senderIsPseudo INTEGER NOT NULL,
                        actionResults BLOB,
                        state TEXT NOT NULL CHECK (state IN ('SENDING', 'DELIVERED', 'DONE', 'INCOMPLETE')),
                        firedByTriggerID TEXT,
                        created INTEGER NOT NULL,
                        modified INTEGER NOT NULL
                    );
                    CREATE INDEX thing_command_thing ON thing_command (thingID, id);
                    CREATE TABLE thing_state (
                        id INTEGER PRIMARY KEY,
                        thingID TEXT NOT NULL REFERENCES thing(thingID) ON DELETE CASCADE,
                        timestamp INTEGER NOT NULL,
                        state BLOB NOT NULL
                    );
                    CREATE INDEX thing_state_thing ON thing_state (thingID, id);
                    CREATE TABLE installation (
                        installationID TEXT PRIMARY KEY NOT NULL,
                        userID TEXT NOT NULL,
                        deviceType TEXT NOT NULL,
                        registrationID TEXT,
                        development INTEGER NOT NULL,
                        created INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX installation_user ON installation (userID, deviceType, registrationID);
                    CREATE TABLE thing_trigger (
                        id INTEGER PRIMARY KEY,
                        triggerID TEXT NOT NULL UNIQUE,
                        thingID TEXT NOT NULL REFERENCES thing(thingID) ON DELETE CASCADE,
                        condition BLOB NOT NULL,
                        command BLOB NOT NULL,
                        enabled INTEGER NOT NULL,
                        lastValue INTEGER NOT NULL,
                        creator TEXT,
                        created INTEGER NOT NULL
                    );
                    CREATE INDEX thing_trigger_thing ON thing_trigger (thingID, id);
                    -- Who may replay a thing event: principals (users, things, installation:<id>) and owner groups.
                    CREATE TABLE thing_event_reader (
                        principal TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (principal, seq)
                    ) WITHOUT ROWID;
                    CREATE TABLE thing_event_group (
                        seq INTEGER NOT NULL,
                        groupID TEXT NOT NULL,
                        PRIMARY KEY (seq, groupID)
                    ) WITHOUT ROWID;
                    """
            )
        }
        migrator.registerMigration("things-2: event readers in seq order") { db in
            try db.execute(sql: SQLiteEventReaders.seqOrderMigration(readers: "thing_event_reader", principal: "principal"))
        }
        migrator.registerMigration("things-3: state upload time") { db in
            // When each state was uploaded, by the daemon's clock: the history's age limit (the thing's own
            // timestamp may be anything). Rows from before count as uploaded now, so that none is dropped for its
            // age before --state-history-days have passed.
            try db.execute(
                sql: """
                    ALTER TABLE thing_state ADD COLUMN uploaded INTEGER NOT NULL DEFAULT 0;
                    UPDATE thing_state SET uploaded = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER);
                    """
            )
        }
        // The bounds on what a thing may have pending and on what its triggers fire per second count through these:
        // a thing's pending commands, and its fired ones by time, without reading its history.
        migrator.registerMigration("things-4: pending and fired commands indexed") { db in
            try db.execute(
                sql: """
                    CREATE INDEX thing_command_pending ON thing_command (thingID) WHERE state IN ('SENDING', 'DELIVERED');
                    CREATE INDEX thing_command_fired ON thing_command (thingID, created) WHERE firedByTriggerID IS NOT NULL;
                    """
            )
        }
        // thing.disable / thing.enable: a disabled thing's token authenticates nothing.
        migrator.registerMigration("things-5: disabled things") { db in
            try db.execute(sql: "ALTER TABLE thing ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0")
        }
        // Thing-IF's trigger model: a predicate (states with triggersWhen, a schedule, a single time), an action
        // (a command or a notification), title and description; a schedule's next due time, indexed for the
        // runner; each trigger's firings. The table is rebuilt because condition and command are no longer
        // always there; existing triggers become STATES / CONDITION_FALSE_TO_TRUE / COMMAND, as they behaved.
        migrator.registerMigration("things-6: trigger predicates, actions, schedules and results") { db in
            try db.execute(
                sql: """
                    CREATE TABLE thing_trigger_new (
                        id INTEGER PRIMARY KEY,
                        triggerID TEXT NOT NULL UNIQUE,
                        thingID TEXT NOT NULL REFERENCES thing(thingID) ON DELETE CASCADE,
                        predicate BLOB NOT NULL,
                        action TEXT NOT NULL CHECK (action IN ('COMMAND', 'NOTIFY')),
                        command BLOB,
                        parameters BLOB,
                        title TEXT,
                        description TEXT,
                        enabled INTEGER NOT NULL,
                        lastValue INTEGER NOT NULL,
                        nextFire INTEGER,
                        creator TEXT,
                        created INTEGER NOT NULL,
                        modified INTEGER NOT NULL,
                        CHECK ((action = 'COMMAND') = (command IS NOT NULL))
                    );
                    INSERT INTO thing_trigger_new (id, triggerID, thingID, predicate, action, command, enabled, lastValue, creator, created, modified)
                        SELECT id, triggerID, thingID,
                            CAST('{"eventSource":"STATES","condition":' || CAST(condition AS TEXT) || ',"triggersWhen":"CONDITION_FALSE_TO_TRUE"}' AS BLOB),
                            'COMMAND', command, enabled, lastValue, creator, created, created
                        FROM thing_trigger;
                    DROP TABLE thing_trigger;
                    ALTER TABLE thing_trigger_new RENAME TO thing_trigger;
                    CREATE INDEX thing_trigger_thing ON thing_trigger (thingID, id);
                    CREATE INDEX thing_trigger_due ON thing_trigger (nextFire) WHERE nextFire IS NOT NULL AND enabled = 1;
                    CREATE TABLE thing_trigger_result (
                        id INTEGER PRIMARY KEY,
                        triggerID TEXT NOT NULL REFERENCES thing_trigger(triggerID) ON DELETE CASCADE,
                        thingID TEXT NOT NULL,
                        firedAt INTEGER NOT NULL,
                        dueAt INTEGER,
                        cause TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        commandID TEXT,
                        reason TEXT
                    );
                    CREATE INDEX thing_trigger_result_trigger ON thing_trigger_result (triggerID, id);
                    """
            )
        }
        // Each thing's trigger revision, which every change to its triggers sets anew (`ThingTriggerSets` keeps
        // the compiled triggers by it); an upload compares its state with the one before it instead of storing
        // each condition's last value. Each firing's ordinal among its trigger's, which paces the pruning of its
        // results per trigger.
        migrator.registerMigration("things-7: trigger revisions and firing ordinals") { db in
            try db.execute(
                sql: """
                    ALTER TABLE thing ADD COLUMN triggerRevision INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE thing_trigger DROP COLUMN lastValue;
                    ALTER TABLE thing_trigger_result ADD COLUMN ordinal INTEGER NOT NULL DEFAULT 0;
                    """
            )
        }
        // Grouped and aggregated history (Thing-IF's `grouped` queries): each state's totals per minute of its
        // timestamp (`StateRollup`), kept with every upload and prune, filled here from the states kept; and the
        // states by time, for the minutes a query reads from the states themselves.
        migrator.registerMigration("things-8: state rollups per minute") { db in
            try db.execute(
                sql: """
                    CREATE INDEX thing_state_time ON thing_state (thingID, timestamp);
                    CREATE TABLE thing_state_rollup (
                        thingID TEXT NOT NULL REFERENCES thing(thingID) ON DELETE CASCADE,
                        -- A top-level field of the states, or '' for the states themselves.
                        field TEXT NOT NULL,
                        -- Minutes since 1970 of the states' timestamps, rounded down.
                        minute INTEGER NOT NULL,
                        -- States that have the field (all of them for '').
                        count INTEGER NOT NULL,
                        -- Of those, the ones whose value is a number, and of the numbers, those with a fraction.
                        numbers INTEGER NOT NULL,
                        decimals INTEGER NOT NULL,
                        sum REAL NOT NULL,
                        -- NULL when there is no number.
                        minimum REAL,
                        maximum REAL,
                        -- 1 while a prune took the minimum or maximum from a minute of many states: its queries read
                        -- the minute's states instead, until a later prune counts them again.
                        stale INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (thingID, field, minute)
                    ) WITHOUT ROWID;
                    CREATE INDEX thing_state_rollup_stale ON thing_state_rollup (thingID, minute) WHERE stale = 1;
                    -- Whether uploads keep the rollups (one row): guildd sets it at start from its state history
                    -- limit (`StateHistoryLimits.keepsRollups`), filling or emptying them when it changes.
                    CREATE TABLE thing_state_rollup_mode (kept INTEGER NOT NULL);
                    INSERT INTO thing_state_rollup_mode (kept) VALUES (1);
                    """
            )
            try db.execute(sql: Self.stateRollupBackfill)
        }
        // Presence per host (`ThingService.setOnline`): a row per thing and host while a connection to that host
        // is bound to the thing, and each host's lease. SQLite has one host at a time; the tables are the same as
        // PostgreSQL's, where several hosts share them.
        migrator.registerMigration("things-9: presence per host") { db in
            try db.execute(
                sql: """
                    CREATE TABLE thing_presence (
                        thingID TEXT NOT NULL REFERENCES thing(thingID) ON DELETE CASCADE,
                        hostID TEXT NOT NULL,
                        since INTEGER NOT NULL,
                        PRIMARY KEY (thingID, hostID)
                    ) WITHOUT ROWID;
                    CREATE INDEX thing_presence_host ON thing_presence (hostID, thingID);
                    CREATE TABLE presence_host (
                        hostID TEXT PRIMARY KEY NOT NULL,
                        -- What stays the same from one run of a host to the next (PresenceHost.name).
                        name TEXT NOT NULL,
                        expires INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    """
            )
        }
    }

    /// The rollups of the states stored (`things-8`): per thing and minute, a row counting the states, and per
    /// top-level field (but '' and names holding U+0000, as `StateRollup.isRolledUp`) the states that have it,
    /// how many of those are numbers (with a fraction), their sum, minimum and maximum.
    static let stateRollupBackfill = """
        WITH s AS (
            SELECT thingID, state, CASE WHEN timestamp >= 0 THEN timestamp / 60000 ELSE (timestamp + 1) / 60000 - 1 END AS minute
            FROM thing_state
        )
        INSERT INTO thing_state_rollup (thingID, field, minute, count, numbers, decimals, sum, minimum, maximum)
        SELECT thingID, '', minute, count(*), 0, 0, 0.0, NULL, NULL FROM s GROUP BY thingID, minute
        UNION ALL
        SELECT s.thingID, j.key, s.minute, count(*),
            sum(j.type IN ('integer', 'real')),
            sum(j.type = 'real' AND j.value <> round(j.value)),
            total(CASE WHEN j.type IN ('integer', 'real') THEN j.value END),
            min(CASE WHEN j.type IN ('integer', 'real') THEN j.value END),
            max(CASE WHEN j.type IN ('integer', 'real') THEN j.value END)
        FROM s, json_each(CAST(s.state AS TEXT)) j
        WHERE j.key <> '' AND instr(CAST(j.key AS BLOB), x'00') = 0
        GROUP BY s.thingID, j.key, s.minute
        """

    var eventArea: (any SQLiteEventArea)? { ThingSQLiteEventArea() }
}
