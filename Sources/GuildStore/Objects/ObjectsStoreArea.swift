import GRDB

/// The objects area in SQLite: buckets, objects, the field index queries read, ACL entries, and who may
/// replay object events. Read and written through `SQLiteObjectRecords`.
struct ObjectsStoreArea: SQLiteStoreArea {
    func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("objects-1-buckets-objects-acls") { db in
            try db.execute(
                sql: """
                    CREATE TABLE bucket (
                        id INTEGER PRIMARY KEY,
                        scope TEXT NOT NULL,
                        name TEXT NOT NULL,
                        creator TEXT,
                        created INTEGER NOT NULL,
                        UNIQUE (scope, name)
                    );
                    CREATE TABLE object (
                        id INTEGER PRIMARY KEY,
                        bucketID INTEGER NOT NULL REFERENCES bucket(id) ON DELETE CASCADE,
                        objectID TEXT NOT NULL,
                        fields BLOB NOT NULL,
                        version INTEGER NOT NULL,
                        created INTEGER NOT NULL,
                        modified INTEGER NOT NULL,
                        owner TEXT,
                        -- 0 while the object's default ACL applies (not stored as entries).
                        aclWritten INTEGER NOT NULL DEFAULT 0,
                        UNIQUE (bucketID, objectID)
                    );
                    -- Every scalar of every object by dotted path: kind 1 Boolean, 2 number, 3 string.
                    CREATE TABLE object_field (
                        bucketID INTEGER NOT NULL,
                        path TEXT NOT NULL,
                        kind INTEGER NOT NULL,
                        value,
                        objectRow INTEGER NOT NULL REFERENCES object(id) ON DELETE CASCADE
                    );
                    CREATE INDEX object_field_value ON object_field (bucketID, path, kind, value, objectRow);
                    CREATE INDEX object_field_object ON object_field (objectRow, path);
                    -- bucketID 0: the scope's own entries; objectID '': the bucket's.
                    CREATE TABLE acl_entry (
                        scope TEXT NOT NULL,
                        bucketID INTEGER NOT NULL,
                        objectID TEXT NOT NULL,
                        action TEXT NOT NULL,
                        subject TEXT NOT NULL,
                        fixed INTEGER NOT NULL,
                        PRIMARY KEY (scope, bucketID, objectID, action, subject)
                    ) WITHOUT ROWID;
                    CREATE INDEX acl_entry_subject ON acl_entry (subject);
                    -- Scopes whose ACL was written (until then their defaults apply).
                    CREATE TABLE acl_scope (scope TEXT PRIMARY KEY) WITHOUT ROWID;
                    -- Who could read what an object event is about, for replay.
                    CREATE TABLE object_event_reader (
                        userID TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (userID, seq)
                    ) WITHOUT ROWID;
                    CREATE TABLE object_event_group (
                        seq INTEGER NOT NULL,
                        groupID TEXT NOT NULL,
                        PRIMARY KEY (seq, groupID)
                    ) WITHOUT ROWID;
                    """
            )
        }
        migrator.registerMigration("objects-2: event readers in seq order") { db in
            try db.execute(sql: SQLiteEventReaders.seqOrderMigration(readers: "object_event_reader", principal: "userID"))
        }
    }

    var eventArea: (any SQLiteEventArea)? { ObjectSQLiteEventArea() }
}
