import GRDB

/// The schema's history. Migrations describe the past: they use SQL and string literals, never app types,
/// and are never edited once released; a change is a new migration.
///
/// v1 to v6 shipped before the schema was kept per area and span areas, so they stay here, in the order they
/// shipped. Every later migration belongs to its area (``SQLiteStoreArea/registerMigrations(in:)``) and runs
/// after them, area by area in ``SQLiteStore/areas`` order.
enum Migrations {
    static func migrator(areas: [any SQLiteStoreArea]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users and tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE "user" (
                        id TEXT PRIMARY KEY NOT NULL,
                        username TEXT UNIQUE COLLATE NOCASE,
                        email TEXT UNIQUE COLLATE NOCASE,
                        phone TEXT UNIQUE,
                        displayName TEXT,
                        fields TEXT NOT NULL DEFAULT '{}',
                        passwordHash TEXT,
                        isPseudo INTEGER NOT NULL CHECK (isPseudo IN (0, 1)),
                        createdAt INTEGER NOT NULL,
                        modifiedAt INTEGER NOT NULL,
                        CHECK (isPseudo = 1 OR passwordHash IS NOT NULL),
                        CHECK (isPseudo = 1 OR username IS NOT NULL OR email IS NOT NULL OR phone IS NOT NULL)
                    );
                    CREATE TABLE token (
                        hash BLOB PRIMARY KEY NOT NULL CHECK (length(hash) = 32),
                        userID TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
                        family TEXT NOT NULL,
                        expiresAt INTEGER,
                        createdAt INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX token_family ON token(family);
                    CREATE INDEX token_userID ON token(userID);
                    """
            )
        }
        migrator.registerMigration("v2: groups, memberships and the event log") { db in
            try db.execute(
                sql: """
                    CREATE TABLE "group" (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        type TEXT NOT NULL,
                        memberCount INTEGER NOT NULL DEFAULT 0 CHECK (memberCount >= 0),
                        createdAt INTEGER NOT NULL,
                        modifiedAt INTEGER NOT NULL
                    );
                    -- One row per member; the owner is the member whose role is 'owner', so the owner is always
                    -- a member, and the partial unique index allows at most one. The AUTOINCREMENT id is the join
                    -- order members page in.
                    CREATE TABLE membership (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        groupID TEXT NOT NULL REFERENCES "group"(id) ON DELETE CASCADE,
                        userID TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
                        joinedAt INTEGER NOT NULL,
                        UNIQUE (groupID, userID)
                    );
                    CREATE INDEX membership_userID ON membership(userID, groupID);
                    CREATE UNIQUE INDEX membership_one_owner ON membership(groupID) WHERE role = 'owner';
                    -- The outbox: every change appends its events in its own transaction. AUTOINCREMENT never
                    -- reuses a sequence number, even after old events are pruned.
                    CREATE TABLE event (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        groupID TEXT NOT NULL,
                        audience TEXT NOT NULL CHECK (audience IN ('members', 'named')),
                        body BLOB NOT NULL,
                        time INTEGER NOT NULL
                    );
                    CREATE INDEX event_time ON event(time);
                    -- The users an event names: they receive it even when not members.
                    CREATE TABLE event_subject (
                        userID TEXT NOT NULL,
                        seq INTEGER NOT NULL REFERENCES event(seq) ON DELETE CASCADE,
                        PRIMARY KEY (userID, seq)
                    ) WITHOUT ROWID;
                    CREATE INDEX event_subject_seq ON event_subject(seq);
                    -- Who was a member when: replay shows a user the events of groups they belonged to at the time.
                    CREATE TABLE membership_history (
                        groupID TEXT NOT NULL,
                        userID TEXT NOT NULL,
                        fromSeq INTEGER NOT NULL,
                        toSeq INTEGER
                    );
                    CREATE INDEX membership_history_user ON membership_history(userID, groupID, fromSeq);
                    CREATE INDEX membership_history_open ON membership_history(groupID, userID) WHERE toSeq IS NULL;
                    """
            )
        }
        migrator.registerMigration("v3: membership indexes in join order") { db in
            // Pages of members and lists of a user's groups walk these in order instead of sorting.
            try db.execute(
                sql: """
                    CREATE INDEX membership_group_order ON membership(groupID, id);
                    CREATE INDEX membership_user_order ON membership(userID, id);
                    DROP INDEX membership_userID;
                    """
            )
        }
        migrator.registerMigration("v4: IM group profiles, mutes, applications, attributes, dismissed groups") { db in
            try db.execute(
                sql: """
                    ALTER TABLE "group" ADD COLUMN introduction TEXT NOT NULL DEFAULT '';
                    ALTER TABLE "group" ADD COLUMN notification TEXT NOT NULL DEFAULT '';
                    ALTER TABLE "group" ADD COLUMN faceURL TEXT NOT NULL DEFAULT '';
                    ALTER TABLE "group" ADD COLUMN addOption TEXT NOT NULL DEFAULT 'FORBID'
                        CHECK (addOption IN ('FORBID', 'AUTH', 'ANY'));
                    ALTER TABLE "group" ADD COLUMN allMuted INTEGER NOT NULL DEFAULT 0 CHECK (allMuted IN (0, 1));
                    ALTER TABLE "group" ADD COLUMN custom TEXT NOT NULL DEFAULT '{}';
                    ALTER TABLE "group" ADD COLUMN attributes TEXT NOT NULL DEFAULT '{}';
                    ALTER TABLE "group" ADD COLUMN attributesVersion INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE "group" ADD COLUMN messageSeq INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE membership ADD COLUMN nameCard TEXT NOT NULL DEFAULT '';
                    ALTER TABLE membership ADD COLUMN receiveOption TEXT NOT NULL DEFAULT 'RECEIVE'
                        CHECK (receiveOption IN ('RECEIVE', 'NOT_RECEIVE', 'RECEIVE_NOT_NOTIFY'));
                    ALTER TABLE membership ADD COLUMN custom TEXT NOT NULL DEFAULT '{}';
                    -- A mute belongs to the user in the group, not to the membership: it survives leaving and
                    -- re-joining (Tencent's forbid_send_msg).
                    CREATE TABLE group_mute (
                        groupID TEXT NOT NULL REFERENCES "group"(id) ON DELETE CASCADE,
                        userID TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                        muteUntil INTEGER NOT NULL,
                        PRIMARY KEY (groupID, userID)
                    ) WITHOUT ROWID;
                    -- Dismissed IM groups: their ids answer GROUP_DISMISSED (10010) and are never reused.
                    CREATE TABLE dismissed_group (
                        id TEXT PRIMARY KEY NOT NULL,
                        type TEXT NOT NULL,
                        dismissedAt INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE application (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        groupID TEXT NOT NULL REFERENCES "group"(id) ON DELETE CASCADE,
                        fromUser TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                        message TEXT NOT NULL DEFAULT '',
                        status TEXT NOT NULL CHECK (status IN ('PENDING', 'ACCEPTED', 'REFUSED')),
                        handledBy TEXT,
                        handledMessage TEXT NOT NULL DEFAULT '',
                        createdAt INTEGER NOT NULL,
                        handledAt INTEGER
                    );
                    CREATE INDEX application_group ON application(groupID, id);
                    CREATE UNIQUE INDEX application_one_pending ON application(groupID, fromUser) WHERE status = 'PENDING';
                    """
            )
        }
        migrator.registerMigration("v5: the owner on the group row; a covering index for a user's groups") { db in
            // Lists of a user's groups read the owner from the group row instead of looking up the owner's
            // membership per group. Triggers keep it equal to the membership whose role is 'owner' (system.check
            // verifies it), whatever changes memberships.
            try db.execute(
                sql: """
                    ALTER TABLE "group" ADD COLUMN ownerID TEXT;
                    UPDATE "group" SET ownerID = (SELECT m.userID FROM membership m WHERE m.groupID = "group".id AND m.role = 'owner');
                    CREATE TRIGGER membership_owner_insert AFTER INSERT ON membership WHEN NEW.role = 'owner' BEGIN
                        UPDATE "group" SET ownerID = NEW.userID WHERE id = NEW.groupID;
                    END;
                    CREATE TRIGGER membership_owner_update AFTER UPDATE OF role ON membership
                    WHEN NEW.role = 'owner' OR OLD.role = 'owner' BEGIN
                        UPDATE "group" SET ownerID = (SELECT m.userID FROM membership m WHERE m.groupID = NEW.groupID AND m.role = 'owner')
                        WHERE id = NEW.groupID;
                    END;
                    CREATE TRIGGER membership_owner_delete AFTER DELETE ON membership WHEN OLD.role = 'owner' BEGIN
                        UPDATE "group" SET ownerID = NULL WHERE id = OLD.groupID;
                    END;
                    CREATE INDEX membership_user_cover ON membership(userID, id, groupID, role);
                    DROP INDEX membership_user_order;
                    """
            )
        }
        migrator.registerMigration("v6: members who receive no copy of an event (NOT_RECEIVE)") { db in
            // A newMessage is not delivered to members whose receive option is NOT_RECEIVE: they are listed per
            // event, so replay skips them too. The partial index finds a group's opted-out members at once.
            try db.execute(
                sql: """
                    CREATE TABLE event_excluded (
                        seq INTEGER NOT NULL REFERENCES event(seq) ON DELETE CASCADE,
                        userID TEXT NOT NULL,
                        PRIMARY KEY (seq, userID)
                    ) WITHOUT ROWID;
                    CREATE INDEX membership_not_receive ON membership(groupID, userID) WHERE receiveOption = 'NOT_RECEIVE';
                    """
            )
        }
        for area in areas { area.registerMigrations(in: &migrator) }
        return migrator
    }
}
