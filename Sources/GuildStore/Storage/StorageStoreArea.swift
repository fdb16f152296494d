import GRDB

/// Storage usage in SQLite: bytes of stored bodies per owner and area (`storage_usage`), kept by triggers on
/// the tables that hold them, so every write, deletion, retention pass and cascade updates it in its own
/// transaction. Who is charged follows ``StorageOwner``; `storage_recount` recounts it from the tables (for the
/// migration's first fill and `system.check`). Read through `SQLiteStorageRecords`.
struct StorageStoreArea: SQLiteStoreArea {
    func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("storage-1: usage per owner and area") { db in
            try db.execute(sql: Self.schema)
        }
    }

    private static func charge(_ owner: String, _ area: String, _ bytes: String) -> String {
        """
        INSERT INTO storage_usage (owner, area, bytes)
            SELECT payer, '\(area)', \(bytes) FROM (SELECT \(owner) AS payer) WHERE payer IS NOT NULL
            ON CONFLICT (owner, area) DO UPDATE SET bytes = bytes + excluded.bytes;
        """
    }

    /// The usage triggers of `table`. The update trigger fires only for statements that set `columns` (those
    /// holding the bytes): a command's delivery or an object's ACL mark pays nothing for it.
    private static func triggers(
        table: String,
        columns: String,
        area: String,
        owner: (String) -> String,
        bytes: (String) -> String
    ) -> String {
        """
        CREATE TRIGGER storage_\(table)_insert AFTER INSERT ON \(table) BEGIN
            \(Self.charge(owner("NEW"), area, bytes("NEW")))
        END;
        CREATE TRIGGER storage_\(table)_update AFTER UPDATE OF \(columns) ON \(table) WHEN \(bytes("NEW")) <> \(bytes("OLD")) BEGIN
            \(Self.charge(owner("NEW"), area, "\(bytes("NEW")) - \(bytes("OLD"))"))
        END;
        CREATE TRIGGER storage_\(table)_delete AFTER DELETE ON \(table) BEGIN
            \(Self.charge(owner("OLD"), area, "-\(bytes("OLD"))"))
        END;
        """
    }

    private static let schema = """
        CREATE TABLE storage_usage (
            owner TEXT NOT NULL,
            area TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            PRIMARY KEY (owner, area)
        ) WITHOUT ROWID;
        CREATE VIEW storage_recount (owner, area, bytes) AS
            SELECT payer, 'objects', sum(length(o.fields))
                FROM (SELECT COALESCE('user:' || o.owner, NULLIF(b.scope, 'app')) AS payer, o.fields
                    FROM object o JOIN bucket b ON b.id = o.bucketID) o
                WHERE payer IS NOT NULL GROUP BY payer
            UNION ALL SELECT 'thing:' || thingID, 'states', sum(length(state)) FROM thing_state GROUP BY thingID
            UNION ALL SELECT 'thing:' || thingID, 'commands', sum(length(request) + COALESCE(length(actionResults), 0))
                FROM thing_command GROUP BY thingID
            UNION ALL SELECT 'user:' || sender, 'messages', sum(COALESCE(length(body), 0)) FROM group_message GROUP BY sender;
        INSERT INTO storage_usage (owner, area, bytes) SELECT owner, area, bytes FROM storage_recount WHERE true;
        \(Self.triggers(
            table: "object", columns: "fields", area: "objects",
            owner: { "COALESCE('user:' || \($0).owner, (SELECT NULLIF(scope, 'app') FROM bucket WHERE id = \($0).bucketID))" },
            bytes: { "length(\($0).fields)" }
        ))
        \(Self.triggers(table: "thing_state", columns: "state", area: "states", owner: { "'thing:' || \($0).thingID" }, bytes: { "length(\($0).state)" }))
        \(Self.triggers(
            table: "thing_command", columns: "request, actionResults", area: "commands",
            owner: { "'thing:' || \($0).thingID" }, bytes: { "(length(\($0).request) + COALESCE(length(\($0).actionResults), 0))" }
        ))
        \(Self.triggers(
            table: "group_message", columns: "body", area: "messages",
            owner: { "'user:' || \($0).sender" }, bytes: { "COALESCE(length(\($0).body), 0)" }
        ))
        """
}
