extension PostgresMigration {
    /// Storage usage, versions 30-39: SQLite's `storage-1` (GuildStore's `StorageStoreArea`) in snake_case. One
    /// row trigger per table keeps `storage_usage` in the writing transaction, cascades included (PostgreSQL
    /// runs row triggers for the rows a foreign key's `ON DELETE CASCADE` removes). Its upsert locks the owner's
    /// row to the commit, so two hosts charging one owner count one after the other.
    static let storage: [PostgresMigration] = [
        PostgresMigration(
            version: 30,
            name: "storage usage per owner and area, kept by triggers",
            statements: [
                """
                CREATE TABLE storage_usage (
                    owner text NOT NULL,
                    area text NOT NULL,
                    bytes bigint NOT NULL,
                    PRIMARY KEY (owner, area)
                )
                """,
                """
                CREATE VIEW storage_recount (owner, area, bytes) AS
                    SELECT payer, 'objects', sum(octet_length(o.fields))::bigint
                        FROM (SELECT COALESCE('user:' || o.owner, NULLIF(b.scope, 'app')) AS payer, o.fields
                            FROM object o JOIN bucket b ON b.id = o.bucket_id) o
                        WHERE payer IS NOT NULL GROUP BY payer
                    UNION ALL SELECT 'thing:' || thing_id, 'states', sum(octet_length(state))::bigint FROM thing_state GROUP BY thing_id
                    UNION ALL SELECT 'thing:' || thing_id, 'commands',
                        sum(octet_length(request) + COALESCE(octet_length(action_results), 0))::bigint
                        FROM thing_command GROUP BY thing_id
                    UNION ALL SELECT 'user:' || sender, 'messages', sum(COALESCE(octet_length(body), 0))::bigint
                        FROM group_message GROUP BY sender
                """,
                "INSERT INTO storage_usage (owner, area, bytes) SELECT owner, area, bytes FROM storage_recount",
                """
                CREATE FUNCTION storage_charge(payer text, area text, delta bigint) RETURNS void LANGUAGE sql AS $$
                    INSERT INTO storage_usage (owner, area, bytes) SELECT payer, area, delta WHERE payer IS NOT NULL AND delta <> 0
                        ON CONFLICT (owner, area) DO UPDATE SET bytes = storage_usage.bytes + EXCLUDED.bytes
                $$
                """,
                Self.storageTrigger(
                    table: "object",
                    area: "objects",
                    owner: "COALESCE('user:' || ROW.owner, (SELECT NULLIF(scope, 'app') FROM bucket WHERE id = ROW.bucket_id))",
                    bytes: "octet_length(ROW.fields)"
                ),
                Self.storageTrigger(table: "thing_state", area: "states", owner: "'thing:' || ROW.thing_id", bytes: "octet_length(ROW.state)"),
                Self.storageTrigger(
                    table: "thing_command",
                    area: "commands",
                    owner: "'thing:' || ROW.thing_id",
                    bytes: "octet_length(ROW.request) + COALESCE(octet_length(ROW.action_results), 0)"
                ),
                Self.storageTrigger(
                    table: "group_message",
                    area: "messages",
                    owner: "'user:' || ROW.sender",
                    bytes: "COALESCE(octet_length(ROW.body), 0)"
                ),
            ]
                // The update trigger fires only for statements that set the columns holding the bytes.
                + [("object", "fields"), ("thing_state", "state"), ("thing_command", "request, action_results"), ("group_message", "body")]
                .map { table, columns in
                    """
                    CREATE TRIGGER storage_\(table) AFTER INSERT OR DELETE OR UPDATE OF \(columns) ON \(table)
                        FOR EACH ROW EXECUTE FUNCTION storage_\(table)()
                    """
                }
        )
    ]

    /// The trigger function of one table: `owner` and `bytes` are expressions of a row, `ROW` standing for `NEW` or
    /// `OLD`.
    private static func storageTrigger(table: String, area: String, owner: String, bytes: String) -> String {
        func of(_ row: String, _ expression: String) -> String { expression.replacing("ROW", with: row) }
        return """
            CREATE FUNCTION storage_\(table)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    PERFORM storage_charge(\(of("NEW", owner)), '\(area)', \(of("NEW", bytes)));
                ELSIF TG_OP = 'UPDATE' THEN
                    PERFORM storage_charge(\(of("NEW", owner)), '\(area)', (\(of("NEW", bytes))) - (\(of("OLD", bytes))));
                ELSE
                    PERFORM storage_charge(\(of("OLD", owner)), '\(area)', -(\(of("OLD", bytes))));
                END IF;
                RETURN NULL;
            END
            $$
            """
    }
}

/// Storage usage per owner and area: versions 30-39.
enum StoragePostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.storage }
}
