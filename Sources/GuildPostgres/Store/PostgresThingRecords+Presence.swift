import GuildCore
import PostgresNIO

/// Presence per host (`thing_presence`, `presence_host`; see `ThingService.setOnline`), which several hosts write
/// at once: a thing's rows are changed only under the thing's row lock, which `ThingService` takes first (reading
/// the thing), so of two hosts changing one thing's presence, the second counts the rows once the first has
/// committed.
extension PostgresThingRecords {
    public func recordThingPresence(_ present: Bool, thingID: String, hostID: String, now: Int64) throws -> Bool {
        guard Self.isStorableKey(thingID), Self.isStorableKey(hostID) else { return false }
        if present {
            try self.connection.execute(
                """
                INSERT INTO thing_presence (thing_id, host_id, since) VALUES (\(thingID), \(hostID), \(now))
                ON CONFLICT DO NOTHING
                """
            )
        } else {
            try self.connection.execute("DELETE FROM thing_presence WHERE thing_id = \(thingID) AND host_id = \(hostID)")
        }
        return try self.connection.query("SELECT EXISTS (SELECT 1 FROM thing_presence WHERE thing_id = \(thingID))")
            .first?.decode(Bool.self) == true
    }

    public func thingsPresent(hostID: String) throws -> [String] {
        guard Self.isStorableKey(hostID) else { return [] }
        return try self.connection.query(
            "SELECT thing_id FROM thing_presence WHERE host_id = \(hostID) ORDER BY thing_id COLLATE \"C\""
        ).map { try $0.decode(String.self) }
    }

    public func hostsToReap(before now: Int64, named: String?, unleased: Bool, except hostID: String) throws -> [String] {
        let named = named.flatMap { Self.isStorableKey($0) ? $0 : nil }
        return try self.connection.query(
            """
            SELECT host_id FROM presence_host WHERE (expires < \(now) OR name = \(named)) AND host_id <> \(hostID)
            UNION SELECT DISTINCT p.host_id FROM thing_presence p
            WHERE \(unleased) AND p.host_id <> \(hostID)
            AND NOT EXISTS (SELECT 1 FROM presence_host h WHERE h.host_id = p.host_id)
            ORDER BY 1
            """
        ).map { try $0.decode(String.self) }
    }

    public func renewHostLease(hostID: String, expires: Int64) throws -> Bool {
        guard Self.isStorableKey(hostID) else { return false }
        return try self.connection.execute("UPDATE presence_host SET expires = \(expires) WHERE host_id = \(hostID)") > 0
    }

    public func insertHostLease(hostID: String, name: String, expires: Int64) throws {
        try self.connection.execute(
            """
            INSERT INTO presence_host (host_id, name, expires) VALUES (\(hostID), \(name), \(expires))
            ON CONFLICT (host_id) DO UPDATE SET name = excluded.name, expires = excluded.expires
            """
        )
    }

    public func deleteHostLease(hostID: String) throws {
        guard Self.isStorableKey(hostID) else { return }
        try self.connection.execute("DELETE FROM presence_host WHERE host_id = \(hostID)")
    }
}
