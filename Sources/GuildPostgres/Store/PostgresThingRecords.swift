import Foundation
import GuildCore
import GuildJSON
import NIOCore
import PostgresNIO

/// The things area's records (`ThingRecords`) in one PostgreSQL transaction: what `tx.things` hands out.
struct PostgresThingRecords: PostgresAreaRecords {
    let tx: PostgresTransaction
}

extension PostgresTransaction {
    /// The things area's records in this transaction.
    public var things: any ThingRecords { PostgresThingRecords(tx: self) }
}

/// The things area on PostgreSQL (schema version 20), answering as `GuildStore`'s SQLite version does: the same
/// rows in the same orders, JSON stored as the same compact text (in `bytea`, since its strings may hold U+0000).
///
/// Several hosts may write at once, each through its own ``PostgresWriter``, where SQLite has a single writer. So
/// in a write transaction, a thing or a command read to be changed is locked (`FOR NO KEY UPDATE`) until the
/// transaction ends: of two hosts posting a command's results at once, the second reads it once the first has
/// committed, finished. Looking a thing up by its vendor's id takes a transaction-scoped advisory lock on that
/// id first, so of two hosts onboarding the same new thing, the second finds the first's thing instead of
/// inserting a second one.
///
/// A key holding U+0000 (an id, ...) names no row, since no stored key can hold one.
extension PostgresThingRecords: ThingRecords {
    // MARK: - Things

    /// A thing by id; locked until the transaction ends in a write transaction.
    public func thing(id: String) throws -> Thing? {
        guard Self.isStorableKey(id) else { return nil }
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.thingColumns) FROM thing WHERE thing_id = \(id) \(unescaped: self.rowLock)
            """
        )
        return try rows.first.map { try Self.thing(from: $0.makeRandomAccess()) }
    }

    /// A thing by its vendor's id. In a write transaction, first waits for any other transaction that looked the
    /// same id up to end, so a thing another host is onboarding is found once committed.
    public func thing(vendorThingID: String) throws -> Thing? {
        guard Self.isStorableKey(vendorThingID) else { return nil }
        if !self.rowLock.isEmpty {
            try self.connection.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("thing.vendor:" + vendorThingID), 0))"
            )
        }
        let rows = try self.connection.query(
            "SELECT \(unescaped: Self.thingColumns) FROM thing WHERE vendor_thing_id = \(vendorThingID)"
        )
        return try rows.first.map { try Self.thing(from: $0.makeRandomAccess()) }
    }

    /// Whether the thing has uploaded a state; nil when there is no such thing.
    public func thingHasState(id: String) throws -> Bool? {
        guard Self.isStorableKey(id) else { return nil }
        return try self.connection.query("SELECT has_state FROM thing WHERE thing_id = \(id)").first?.decode(Bool.self)
    }

    /// Records that the thing has uploaded a state.
    public func markThingHasState(id: String) throws {
        guard Self.isStorableKey(id) else { return }
        try self.connection.execute("UPDATE thing SET has_state = true WHERE thing_id = \(id)")
    }

    /// Stores a new thing.
    public func insertThing(_ thing: Thing) throws {
        try self.connection.execute(
            """
            INSERT INTO thing (\(unescaped: Self.thingColumns)) VALUES (
                \(thing.thingID), \(thing.vendorThingID), \(thing.passwordHash), \(thing.thingType),
                \(thing.firmwareVersion), \(Self.json(.object(thing.properties))), \(thing.created), \(thing.modified),
                \(thing.online), \(thing.onlineModified), \(thing.hasState), \(thing.disabled)
            )
            """
        )
    }

    /// Writes a thing's password, type, firmware, properties, times, online status, state flag and disabled flag.
    public func updateThing(_ thing: Thing) throws {
        guard Self.isStorableKey(thing.thingID) else { return }
        try self.connection.execute(
            """
            UPDATE thing SET password_hash = \(thing.passwordHash), thing_type = \(thing.thingType),
                firmware_version = \(thing.firmwareVersion), properties = \(Self.json(.object(thing.properties))),
                modified = \(thing.modified), online = \(thing.online), online_modified = \(thing.onlineModified),
                has_state = \(thing.hasState), disabled = \(thing.disabled)
            WHERE thing_id = \(thing.thingID)
            """
        )
    }

    /// Deletes a thing; its tokens, owners, commands, states and triggers go by `ON DELETE CASCADE`.
    public func deleteThing(id: String) throws {
        guard Self.isStorableKey(id) else { return }
        try self.connection.execute("DELETE FROM thing WHERE thing_id = \(id)")
    }

    /// Stores the hash of an access token of a thing.
    public func insertThingToken(hash: [UInt8], thingID: String, now: Int64) throws {
        try self.connection.execute(
            """
            INSERT INTO thing_token (hash, thing_id, created_at) VALUES (\(ByteBuffer(bytes: hash)), \(thingID), \(now))
            """
        )
    }

    /// The session of a thing's access token, as SQLite's store resolves one after finding no user's token: the
    /// thing acts as a user named by its vendor's id, with a token that never expires; `thingDisabled` while the
    /// thing is disabled.
    public func resolveThingToken(hash: [UInt8]) throws -> ResolvedSession? {
        let rows = try self.connection.query(
            """
            SELECT t.thing_id, t.vendor_thing_id, t.created, t.modified, t.disabled
            FROM thing_token k JOIN thing t ON t.thing_id = k.thing_id WHERE k.hash = \(ByteBuffer(bytes: hash))
            """
        )
        guard let row = rows.first else { return nil }
        let (id, vendorThingID, created, modified, disabled) = try row.decode((String, String, Int64, Int64, Bool).self)
        if disabled { throw ThingService.disabledError(thingID: id) }
        let user = User(id: id, username: vendorThingID, isPseudo: false, createdAt: created, modifiedAt: modified)
        return ResolvedSession(user: user, tokenHash: hash, expiresAt: nil, isThing: true)
    }

    /// The things marked online.
    public func onlineThingIDs() throws -> [String] {
        try self.connection.query("SELECT thing_id FROM thing WHERE online").map { try $0.decode(String.self) }
    }

    // MARK: - Owners

    /// A thing's owners, in the order they were added.
    public func thingOwners(thingID: String) throws -> [ThingOwner] {
        guard Self.isStorableKey(thingID) else { return [] }
        return try self.connection.query(
            "SELECT kind, owner_id FROM thing_owner WHERE thing_id = \(thingID) ORDER BY id"
        ).map { try Self.owner(from: $0) }
    }

    /// Adds an owner; false when it was one (or another transaction added it meanwhile).
    public func insertThingOwner(thingID: String, owner: ThingOwner, now: Int64) throws -> Bool {
        try self.connection.execute(
            """
            INSERT INTO thing_owner (thing_id, kind, owner_id, added)
            VALUES (\(thingID), \(owner.kind), \(owner.id), \(now))
            ON CONFLICT (thing_id, kind, owner_id) DO NOTHING
            """
        ) > 0
    }

    /// Removes an owner; false when it was not one.
    public func deleteThingOwner(thingID: String, owner: ThingOwner) throws -> Bool {
        guard Self.isStorableKey(thingID), Self.isStorableKey(owner.id) else { return false }
        return try self.connection.execute(
            "DELETE FROM thing_owner WHERE thing_id = \(thingID) AND kind = \(owner.kind) AND owner_id = \(owner.id)"
        ) > 0
    }

    /// Removes every ownership of a user or group; returns the things they owned, in the order they were added.
    public func deleteThingOwnerships(of owner: ThingOwner) throws -> [String] {
        guard Self.isStorableKey(owner.id) else { return [] }
        return try self.connection.query(
            """
            WITH deleted AS (
                DELETE FROM thing_owner WHERE kind = \(owner.kind) AND owner_id = \(owner.id) RETURNING id, thing_id
            )
            SELECT thing_id FROM deleted ORDER BY id
            """
        ).map { try $0.decode(String.self) }
    }

    /// The things any of `owners` owns, by id.
    public func things(ownedBy owners: [ThingOwner]) throws -> [Thing] {
        let owners = owners.filter { Self.isStorableKey($0.id) }
        guard !owners.isEmpty else { return [] }
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.thingColumns) FROM thing WHERE thing_id IN (
                SELECT o.thing_id FROM thing_owner o
                JOIN unnest(\(owners.map(\.kind))::text[], \(owners.map(\.id))::text[]) AS w (kind, owner_id)
                    ON o.kind = w.kind AND o.owner_id = w.owner_id
            )
            """
        )
        // Sorted as SQLite's store sorts them: by Swift's order of the ids, whatever the database's collation.
        return try rows.map { try Self.thing(from: $0.makeRandomAccess()) }.sorted { $0.thingID < $1.thingID }
    }

    // MARK: - Commands

    /// Stores a new command.
    public func insertCommand(_ command: ThingCommand) throws {
        try self.connection.execute(
            """
            INSERT INTO thing_command (
                command_id, thing_id, issuer, request, sender_user_id, sender_installation_id, sender_is_pseudo,
                action_results, state, fired_by_trigger_id, created, modified
            ) VALUES (
                \(command.commandID), \(command.thingID), \(command.request.issuer.description),
                \(Self.json(.object(command.request.storedJSON))), \(command.senderUserID),
                \(command.senderInstallationID), \(command.senderIsPseudo),
                \(command.actionResults.map { Self.json(.array($0)) }), \(command.state.rawValue),
                \(command.firedByTriggerID), \(command.created), \(command.modified)
            )
            """
        )
    }

    /// A thing's command by id; locked until the transaction ends in a write transaction, so that of two hosts
    /// posting its results, the second sees the first's.
    public func command(thingID: String, commandID: String) throws -> ThingCommand? {
        guard Self.isStorableKey(thingID), Self.isStorableKey(commandID) else { return nil }
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.commandColumns) FROM thing_command
            WHERE command_id = \(commandID) AND thing_id = \(thingID) \(unescaped: self.rowLock)
            """
        )
        return try rows.first.map { try Self.command(from: $0.makeRandomAccess()) }
    }

    /// Writes a command's results, state and modification time.
    public func updateCommand(_ command: ThingCommand) throws {
        guard Self.isStorableKey(command.commandID) else { return }
        try self.connection.execute(
            """
            UPDATE thing_command SET action_results = \(command.actionResults.map { Self.json(.array($0)) }),
                state = \(command.state.rawValue), modified = \(command.modified)
            WHERE command_id = \(command.commandID)
            """
        )
    }

    /// A page of a thing's commands, newest first, older than `before` when given; each with its position.
    public func commands(
        thingID: String,
        before: Int64?,
        limit: Int
    ) throws
        -> [(command: ThingCommand, position: Int64)]
    {
        guard Self.isStorableKey(thingID) else { return [] }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.commandColumns) FROM thing_command
            WHERE thing_id = \(thingID) AND id < \(before ?? Int64.max) ORDER BY id DESC LIMIT \(Int64(limit))
            """
        ).map { row in
            let row = row.makeRandomAccess()
            return (try Self.command(from: row), try row[0].decode(Int64.self))
        }
    }

    /// Moves the named commands of a thing from SENDING to DELIVERED; returns how many moved.
    public func markCommandsDelivered(thingID: String, commandIDs: [String], now: Int64) throws -> Int {
        let commandIDs = commandIDs.filter(Self.isStorableKey)
        guard Self.isStorableKey(thingID), !commandIDs.isEmpty else { return 0 }
        return try self.connection.execute(
            """
            UPDATE thing_command SET state = 'DELIVERED', modified = \(now)
            WHERE command_id = ANY(\(commandIDs)::text[]) AND thing_id = \(thingID) AND state = 'SENDING'
            """
        )
    }

    /// How many of a thing's commands are pending (SENDING or DELIVERED), through `thing_command_pending`.
    public func pendingCommandCount(thingID: String) throws -> Int {
        guard Self.isStorableKey(thingID) else { return 0 }
        // The IN list is the partial index's own condition, so the planner may use it.
        return Int(
            try self.thingCount(
                "SELECT count(*) FROM thing_command WHERE thing_id = \(thingID) AND state IN ('SENDING', 'DELIVERED')"
            )
        )
    }

    /// How many of a thing's commands triggers sent, created at `since` or later, through `thing_command_fired`.
    public func triggerFiringCount(thingID: String, since: Int64) throws -> Int {
        guard Self.isStorableKey(thingID) else { return 0 }
        return Int(
            try self.thingCount(
                """
                SELECT count(*) FROM thing_command
                WHERE thing_id = \(thingID) AND fired_by_trigger_id IS NOT NULL AND created >= \(since)
                """
            )
        )
    }

    // MARK: - States

    /// Stores a state uploaded at `uploaded` (the latest from now on, and part of the history, its totals added
    /// to its minute's rollups when they are kept); returns its row's id. Whether they are kept comes back with
    /// the insert, in the same round trip.
    @discardableResult
    public func insertState(thingID: String, state: ThingState, uploaded: Int64) throws -> Int64 {
        let rows = try self.connection.query(
            """
            WITH inserted AS (
                INSERT INTO thing_state (thing_id, timestamp, state, uploaded)
                VALUES (\(thingID), \(state.timestamp), \(Self.json(.object(state.state))), \(uploaded)) RETURNING id
            )
            SELECT id, (SELECT kept FROM thing_state_rollup_mode) FROM inserted
            """
        )
        guard let (id, kept) = try rows.first?.decode((Int64, Bool?).self) else {
            throw PostgresStoreError.unexpectedReply("no state id")
        }
        if kept ?? true { try self.addToRollups(thingID: thingID, state) }
        return id
    }

    /// Drops a thing's states past the newest `keepCount` or older than `before`, among its 64 oldest rows
    /// (bounded work per upload), never the latest; what they added to the rollups goes with them when they are
    /// kept.
    @discardableResult
    public func pruneStates(thingID: String, keepCount: Int, before: Int64) throws -> Int {
        guard Self.isStorableKey(thingID) else { return 0 }
        // What they added to the rollups goes with them, when they are kept: the rollup mode is read in the same
        // statement (no round trip of its own), and the rows' states come back only when it keeps them.
        let rows = try self.connection.query(
            """
            WITH oldest AS (SELECT id FROM thing_state WHERE thing_id = \(thingID) ORDER BY id LIMIT 64),
            mode AS (SELECT coalesce((SELECT kept FROM thing_state_rollup_mode), true) AS kept),
            gone AS (
                DELETE FROM thing_state WHERE id IN (SELECT id FROM oldest)
                AND id < (SELECT max(id) FROM thing_state WHERE thing_id = \(thingID)) AND (
                    id <= coalesce((
                        SELECT id FROM thing_state WHERE thing_id = \(thingID) ORDER BY id DESC LIMIT 1 OFFSET \(Int64(keepCount))
                    ), 0)
                    OR uploaded < \(before)
                )
                RETURNING timestamp, state
            )
            SELECT mode.kept, gone.timestamp, CASE WHEN mode.kept THEN gone.state END FROM gone, mode
            """
        )
        guard let first = rows.first, try first.makeRandomAccess()[0].decode(Bool.self) else { return rows.count }
        let removed = try rows.map { row -> ThingState in
            let (_, timestamp, state) = try row.decode((Bool, Int64, ByteBuffer).self)
            return ThingState(state: try Self.object(state), timestamp: timestamp)
        }
        try self.takeFromRollups(thingID: thingID, removed)
        return removed.count
    }

    /// A state of the thing's history by its row id, while the history keeps it.
    public func state(id: Int64, thingID: String) throws -> [String: JSONValue]? {
        guard Self.isStorableKey(thingID),
            let row = try self.connection.query("SELECT state FROM thing_state WHERE id = \(id) AND thing_id = \(thingID)").first
        else { return nil }
        return try Self.object(try row.decode(ByteBuffer.self))
    }

    /// The latest state but row `stateID` (none excluded when nil).
    public func latestState(thingID: String, excluding stateID: Int64?) throws -> ThingState? {
        guard Self.isStorableKey(thingID) else { return nil }
        // Row ids start at 1: excluding 0 excludes nothing.
        let rows = try self.connection.query(
            "SELECT timestamp, state FROM thing_state WHERE thing_id = \(thingID) AND id <> \(stateID ?? 0) ORDER BY id DESC LIMIT 1"
        )
        guard let row = rows.first else { return nil }
        let (timestamp, state) = try row.decode((Int64, ByteBuffer).self)
        return ThingState(state: try Self.object(state), timestamp: timestamp)
    }

    /// A page of states with `from <= timestamp <= to`, oldest first, after position `after`; each with its
    /// position.
    public func states(
        thingID: String,
        from: Int64,
        to: Int64,
        after: Int64?,
        limit: Int
    ) throws
        -> [(state: ThingState, position: Int64)]
    {
        guard Self.isStorableKey(thingID) else { return [] }
        return try self.connection.query(
            """
            SELECT id, timestamp, state FROM thing_state
            WHERE thing_id = \(thingID) AND id > \(after ?? 0) AND timestamp >= \(from) AND timestamp <= \(to)
            ORDER BY id LIMIT \(Int64(limit))
            """
        ).map { row in
            let (id, timestamp, state) = try row.decode((Int64, Int64, ByteBuffer).self)
            return (ThingState(state: try Self.object(state), timestamp: timestamp), id)
        }
    }

    // MARK: - Installations

    /// Stores a new installation.
    public func insertInstallation(_ installation: Installation) throws {
        try self.connection.execute(
            """
            INSERT INTO installation (\(unescaped: Self.installationColumns)) VALUES (
                \(installation.installationID), \(installation.userID), \(installation.deviceType),
                \(installation.registrationID.map { ByteBuffer(string: $0) }), \(installation.development),
                \(installation.created)
            )
            """
        )
    }

    /// An installation by id.
    public func installation(id: String) throws -> Installation? {
        guard Self.isStorableKey(id) else { return nil }
        let rows = try self.connection.query(
            "SELECT \(unescaped: Self.installationColumns) FROM installation WHERE installation_id = \(id)"
        )
        return try rows.first.map(Self.installation(from:))
    }

    /// The user's installation of a device type with a registration id.
    public func installation(userID: String, deviceType: String, registrationID: String) throws -> Installation? {
        guard Self.isStorableKey(userID), Self.isStorableKey(deviceType) else { return nil }
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.installationColumns) FROM installation
            WHERE user_id = \(userID) AND device_type = \(deviceType)
                AND registration_id = \(ByteBuffer(string: registrationID))
            """
        )
        return try rows.first.map(Self.installation(from:))
    }

    /// A user's installations, oldest first (ids in byte order among those created at once, as in SQLite).
    public func installations(userID: String) throws -> [Installation] {
        guard Self.isStorableKey(userID) else { return [] }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.installationColumns) FROM installation
            WHERE user_id = \(userID) ORDER BY created, installation_id COLLATE "C"
            """
        ).map(Self.installation(from:))
    }

    /// A page of a user's installations, oldest first (ids in byte order among those created at once, as in
    /// SQLite), after the position `after` when given.
    public func installations(userID: String, after: (created: Int64, installationID: String)?, limit: Int) throws -> [Installation] {
        guard Self.isStorableKey(userID) else { return [] }
        guard let after else {
            return try self.connection.query(
                """
                SELECT \(unescaped: Self.installationColumns) FROM installation
                WHERE user_id = \(userID) ORDER BY created, installation_id COLLATE "C" LIMIT \(Int64(limit))
                """
            ).map(Self.installation(from:))
        }
        guard Self.isStorableKey(after.installationID) else { return [] }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.installationColumns) FROM installation
            WHERE user_id = \(userID)
                AND (created > \(after.created) OR (created = \(after.created) AND installation_id COLLATE "C" > \(after.installationID)))
            ORDER BY created, installation_id COLLATE "C" LIMIT \(Int64(limit))
            """
        ).map(Self.installation(from:))
    }

    /// How many installations a user has. In a write transaction, first waits for any other transaction that
    /// counted the same user's installations to end (a transaction-scoped advisory lock on the user), so of two
    /// hosts registering an installation of one user at once, the second counts the first's.
    public func installationCount(userID: String) throws -> Int {
        guard Self.isStorableKey(userID) else { return 0 }
        if !self.rowLock.isEmpty {
            try self.connection.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("installation.user:" + userID), 0))"
            )
        }
        let rows = try self.connection.query("SELECT count(*) FROM installation WHERE user_id = \(userID)")
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }

    /// Deletes an installation; false when there was none.
    public func deleteInstallation(id: String) throws -> Bool {
        guard Self.isStorableKey(id) else { return false }
        return try self.connection.execute("DELETE FROM installation WHERE installation_id = \(id)") > 0
    }

    /// Deletes a user's installations.
    public func deleteInstallations(userID: String) throws {
        guard Self.isStorableKey(userID) else { return }
        try self.connection.execute("DELETE FROM installation WHERE user_id = \(userID)")
    }

    // MARK: - Triggers

    /// The columns a trigger is read from, in ``decodeTrigger(from:)``'s order.
    private static let triggerColumns =
        "trigger_id, thing_id, predicate, action, command, parameters, title, description, enabled, next_fire, creator, created, modified"

    /// A trigger's row (``triggerColumns``) as a trigger.
    private static func decodeTrigger(from row: PostgresRandomAccessRow) throws -> ThingTrigger {
        let predicate = try TriggerPredicate(stored: try Self.value(try row[2].decode(ByteBuffer.self)))
        let action: TriggerAction
        if try row[3].decode(String.self) == "NOTIFY" {
            action = .notify(parameters: try row[5].decode(ByteBuffer?.self).map(Self.value))
        } else {
            let command = try Self.object(try row[4].decode(ByteBuffer.self))
            action = .command(try CommandRequest(issuer: command["issuer"]?.stringValue ?? "", storedJSON: command))
        }
        return ThingTrigger(
            triggerID: try row[0].decode(String.self),
            thingID: try row[1].decode(String.self),
            predicate: predicate,
            action: action,
            title: try row[6].decode(String?.self),
            description: try row[7].decode(String?.self),
            enabled: try row[8].decode(Bool.self),
            nextFire: try row[9].decode(Int64?.self),
            creator: try row[10].decode(String?.self),
            created: try row[11].decode(Int64.self),
            modified: try row[12].decode(Int64.self)
        )
    }

    /// A trigger's action as its stored columns, as in SQLite: `COMMAND` or `NOTIFY`, the command (its issuer
    /// folded in) and the parameters.
    private static func actionColumns(_ action: TriggerAction) -> (name: String, command: ByteBuffer?, parameters: ByteBuffer?) {
        switch action {
        case .command(let request):
            var command = request.storedJSON
            command["issuer"] = .string(request.issuer.description)
            return ("COMMAND", Self.json(.object(command)), nil)
        case .notify(let parameters):
            return ("NOTIFY", nil, parameters.map { Self.json($0) })
        }
    }

    /// Stores a new trigger, and gives its thing a new trigger revision.
    public func insertTrigger(_ trigger: ThingTrigger) throws {
        let action = Self.actionColumns(trigger.action)
        try self.connection.execute(
            """
            INSERT INTO thing_trigger (trigger_id, thing_id, predicate, action, command, parameters, title, description,
                enabled, next_fire, creator, created, modified)
            VALUES (
                \(trigger.triggerID), \(trigger.thingID), \(Self.json(trigger.predicate.json)), \(action.name), \(action.command),
                \(action.parameters), \(trigger.title), \(trigger.description), \(trigger.enabled),
                \(trigger.nextFire), \(trigger.creator), \(trigger.created), \(trigger.modified)
            )
            """
        )
        try self.changeTriggerRevision(thingID: trigger.thingID)
    }

    /// Gives the thing a new trigger revision, as SQLite's store does: random and odd (never 0, which only a
    /// thing whose triggers never changed has), so that a revision a rolled-back transaction wrote is never
    /// written again, on any host.
    private func changeTriggerRevision(thingID: String) throws {
        try self.connection.execute(
            "UPDATE thing SET trigger_revision = ((random() * 4e18)::bigint | 1) WHERE thing_id = \(thingID)"
        )
    }

    /// The thing's trigger revision; 0 for no thing.
    public func triggerRevision(thingID: String) throws -> Int64 {
        guard Self.isStorableKey(thingID) else { return 0 }
        return try self.connection.query("SELECT trigger_revision FROM thing WHERE thing_id = \(thingID)").first?.decode(Int64.self) ?? 0
    }

    /// A thing's triggers, oldest first.
    public func triggers(thingID: String) throws -> [ThingTrigger] {
        guard Self.isStorableKey(thingID) else { return [] }
        return try self.connection.query(
            "SELECT \(unescaped: Self.triggerColumns) FROM thing_trigger WHERE thing_id = \(thingID) ORDER BY id"
        ).map { row in try Self.decodeTrigger(from: row.makeRandomAccess()) }
    }

    /// How many triggers a thing has.
    public func triggerCount(thingID: String) throws -> Int {
        guard Self.isStorableKey(thingID) else { return 0 }
        return Int(try self.thingCount("SELECT count(*) FROM thing_trigger WHERE thing_id = \(thingID)"))
    }

    /// A thing's trigger by id.
    public func trigger(thingID: String, triggerID: String) throws -> ThingTrigger? {
        guard Self.isStorableKey(thingID), Self.isStorableKey(triggerID) else { return nil }
        return try self.connection.query(
            "SELECT \(unescaped: Self.triggerColumns) FROM thing_trigger WHERE trigger_id = \(triggerID) AND thing_id = \(thingID)"
        ).first.map { row in try Self.decodeTrigger(from: row.makeRandomAccess()) }
    }

    /// A thing's triggers without a next due time, oldest first, without their actions.
    public func stateTriggerRows(thingID: String) throws -> [StateTriggerRow] {
        guard Self.isStorableKey(thingID) else { return [] }
        return try self.connection.query(
            "SELECT trigger_id, predicate, enabled FROM thing_trigger WHERE thing_id = \(thingID) AND next_fire IS NULL ORDER BY id"
        ).map { row in
            let row = row.makeRandomAccess()
            let predicate = try row[1].decode(ByteBuffer.self)
            return StateTriggerRow(
                triggerID: try row[0].decode(String.self),
                predicate: predicate.getBytes(at: predicate.readerIndex, length: predicate.readableBytes) ?? [],
                enabled: try row[2].decode(Bool.self)
            )
        }
    }

    /// Writes a trigger's predicate, action, texts, enabled flag, next due time and modification time, and gives
    /// its thing a new trigger revision.
    public func updateTrigger(_ trigger: ThingTrigger) throws {
        guard Self.isStorableKey(trigger.triggerID) else { return }
        let action = Self.actionColumns(trigger.action)
        try self.connection.execute(
            """
            UPDATE thing_trigger SET predicate = \(Self.json(trigger.predicate.json)), action = \(action.name),
                command = \(action.command), parameters = \(action.parameters), title = \(trigger.title),
                description = \(trigger.description), enabled = \(trigger.enabled),
                next_fire = \(trigger.nextFire), modified = \(trigger.modified)
            WHERE trigger_id = \(trigger.triggerID)
            """
        )
        try self.changeTriggerRevision(thingID: trigger.thingID)
    }

    /// Deletes a trigger with its firings (ON DELETE CASCADE); false when there was none.
    public func deleteTrigger(thingID: String, triggerID: String) throws -> Bool {
        guard Self.isStorableKey(thingID), Self.isStorableKey(triggerID) else { return false }
        guard try self.connection.execute("DELETE FROM thing_trigger WHERE thing_id = \(thingID) AND trigger_id = \(triggerID)") > 0 else {
            return false
        }
        try self.changeTriggerRevision(thingID: thingID)
        return true
    }

    /// Enabled triggers whose schedule is due at `now`, the earliest due first, through `thing_trigger_due`.
    public func dueTriggers(at now: Int64, limit: Int) throws -> [ThingTrigger] {
        try self.connection.query(
            """
            SELECT \(unescaped: Self.triggerColumns) FROM thing_trigger
            WHERE next_fire IS NOT NULL AND enabled AND next_fire <= \(now) ORDER BY next_fire LIMIT \(Int64(limit))
            """
        ).map { row in try Self.decodeTrigger(from: row.makeRandomAccess()) }
    }

    /// The earliest next due time of an enabled schedule.
    public func earliestDue() throws -> Int64? {
        try self.connection.query("SELECT min(next_fire) FROM thing_trigger WHERE next_fire IS NOT NULL AND enabled").first.flatMap {
            row in try row.makeRandomAccess()[0].decode(Int64?.self)
        }
    }

    /// Moves a schedule's next due time from `from` to `to`, only if it is still `from`. Under READ COMMITTED a
    /// second host's update waits for the first's commit and then finds the due time moved: it fires nothing.
    public func advanceSchedule(triggerID: String, from: Int64, to: Int64?) throws -> Bool {
        guard Self.isStorableKey(triggerID) else { return false }
        return try self.connection.execute(
            "UPDATE thing_trigger SET next_fire = \(to) WHERE trigger_id = \(triggerID) AND next_fire = \(from)"
        ) > 0
    }

    /// Stores a firing of a trigger; returns its row's id.
    @discardableResult
    public func insertTriggerFiring(_ firing: TriggerFiring) throws -> Int64 {
        let rows = try self.connection.query(
            """
            INSERT INTO thing_trigger_result (trigger_id, thing_id, fired_at, due_at, cause, outcome, command_id, reason, ordinal)
            VALUES (
                \(firing.triggerID), \(firing.thingID), \(firing.firedAt), \(firing.dueAt), \(firing.cause), \(firing.outcome.rawValue),
                \(firing.commandID), \(firing.reason),
                coalesce((SELECT ordinal FROM thing_trigger_result WHERE trigger_id = \(firing.triggerID) ORDER BY id DESC LIMIT 1), 0) + 1
            )
            RETURNING ordinal
            """
        )
        return try rows.first?.makeRandomAccess()[0].decode(Int64.self) ?? 0
    }

    /// Drops a trigger's oldest firings beyond the newest `keep`.
    public func pruneTriggerFirings(triggerID: String, keep: Int) throws {
        guard Self.isStorableKey(triggerID) else { return }
        try self.connection.execute(
            """
            DELETE FROM thing_trigger_result WHERE trigger_id = \(triggerID) AND id <= (
                SELECT id FROM thing_trigger_result WHERE trigger_id = \(triggerID) ORDER BY id DESC LIMIT 1 OFFSET \(Int64(keep)))
            """
        )
    }

    /// A page of a trigger's firings, newest first, older than `before` when given; each with its position.
    public func triggerFirings(triggerID: String, before: Int64?, limit: Int) throws -> [(firing: TriggerFiring, position: Int64)] {
        guard Self.isStorableKey(triggerID) else { return [] }
        return try self.connection.query(
            """
            SELECT id, trigger_id, thing_id, fired_at, due_at, cause, outcome, command_id, reason FROM thing_trigger_result
            WHERE trigger_id = \(triggerID) AND id < \(before ?? Int64.max) ORDER BY id DESC LIMIT \(Int64(limit))
            """
        ).map { row in
            let row = row.makeRandomAccess()
            let firing = TriggerFiring(
                triggerID: try row[1].decode(String.self),
                thingID: try row[2].decode(String.self),
                firedAt: try row[3].decode(Int64.self),
                dueAt: try row[4].decode(Int64?.self),
                cause: try row[5].decode(String.self),
                outcome: TriggerFiring.Outcome(rawValue: try row[6].decode(String.self)) ?? .skipped,
                commandID: try row[7].decode(String?.self),
                reason: try row[8].decode(String?.self)
            )
            return (firing, try row[0].decode(Int64.self))
        }
    }

    // MARK: - Invariants

    /// Checks the things area's invariants, as SQLite's store does; returns a description of each violation.
    public func thingInvariantViolations() throws -> [String] {
        var violations: [String] = []
        let orphans = try self.thingCount(
            """
            SELECT count(*) FROM thing_owner o
            WHERE (o.kind = 'user' AND NOT EXISTS (SELECT 1 FROM "user" u WHERE u.id = o.owner_id))
                OR (o.kind = 'group' AND NOT EXISTS (SELECT 1 FROM "group" g WHERE g.id = o.owner_id))
            """
        )
        if orphans > 0 { violations.append("\(orphans) thing ownerships name a user or group that does not exist") }
        let finishedWithoutResults = try self.thingCount(
            "SELECT count(*) FROM thing_command WHERE state IN ('DONE', 'INCOMPLETE') AND action_results IS NULL"
        )
        if finishedWithoutResults > 0 {
            violations.append("\(finishedWithoutResults) finished commands have no results")
        }
        let stateless = try self.thingCount(
            """
            SELECT count(*) FROM thing t
            WHERE NOT t.has_state AND EXISTS (SELECT 1 FROM thing_state s WHERE s.thing_id = t.thing_id)
            """
        )
        if stateless > 0 { violations.append("\(stateless) things have states but are marked as having none") }
        if try self.stateRollupsKept() {
            let uncounted = try self.thingCount(PostgresQuery(unsafeSQL: Self.uncountedMinutes))
            if uncounted > 0 { violations.append("\(uncounted) minutes of thing states are not counted right by their rollups") }
        } else {
            let rows = try self.thingCount("SELECT count(*) FROM thing_state_rollup")
            if rows > 0 { violations.append("\(rows) state rollup rows kept while uploads keep none") }
        }
        return violations
    }
}

extension PostgresThingRecords {
    private static let thingColumns = """
        thing_id, vendor_thing_id, password_hash, thing_type, firmware_version, properties, created, modified, online, \
        online_modified, has_state, disabled
        """

    private static let commandColumns = """
        id, command_id, thing_id, issuer, request, sender_user_id, sender_installation_id, sender_is_pseudo, \
        action_results, state, fired_by_trigger_id, created, modified
        """

    private static let installationColumns =
        "installation_id, user_id, device_type, registration_id, development, created"

    private func thingCount(_ query: PostgresQuery) throws -> Int64 {
        try self.connection.query(query).first?.decode(Int64.self) ?? 0
    }

    private static func thing(from row: PostgresRandomAccessRow) throws -> Thing {
        Thing(
            thingID: try row[0].decode(String.self),
            vendorThingID: try row[1].decode(String.self),
            passwordHash: try row[2].decode(String.self),
            thingType: try row[3].decode(String?.self),
            firmwareVersion: try row[4].decode(String?.self),
            properties: try Self.object(try row[5].decode(ByteBuffer.self)),
            created: try row[6].decode(Int64.self),
            modified: try row[7].decode(Int64.self),
            online: try row[8].decode(Bool.self),
            onlineModified: try row[9].decode(Int64?.self),
            hasState: try row[10].decode(Bool.self),
            disabled: try row[11].decode(Bool.self)
        )
    }

    private static func owner(from row: PostgresRow) throws -> ThingOwner {
        let (kind, id) = try row.decode((String, String).self)
        return kind == "group" ? .group(id) : .user(id)
    }

    private static func command(from row: PostgresRandomAccessRow) throws -> ThingCommand {
        let results = try row[8].decode(ByteBuffer?.self)
        return ThingCommand(
            commandID: try row[1].decode(String.self),
            thingID: try row[2].decode(String.self),
            request: try CommandRequest(
                issuer: try row[3].decode(String.self),
                storedJSON: try Self.object(try row[4].decode(ByteBuffer.self))
            ),
            senderUserID: try row[5].decode(String?.self),
            senderInstallationID: try row[6].decode(String?.self),
            senderIsPseudo: try row[7].decode(Bool.self),
            actionResults: try results.map { bytes in
                guard case .array(let items) = try Self.value(bytes) else { return [] }
                return items
            },
            state: CommandState(rawValue: try row[9].decode(String.self)) ?? .sending,
            firedByTriggerID: try row[10].decode(String?.self),
            created: try row[11].decode(Int64.self),
            modified: try row[12].decode(Int64.self)
        )
    }

    private static func installation(from row: PostgresRow) throws -> Installation {
        let (id, userID, deviceType, registrationID, development, created) = try row.decode(
            (String, String, String, ByteBuffer?, Bool, Int64).self
        )
        return Installation(
            installationID: id,
            userID: userID,
            deviceType: deviceType,
            registrationID: registrationID.map { String(buffer: $0) },
            development: development,
            created: created
        )
    }

    /// A value's compact JSON text, as SQLite's store keeps it.
    private static func json(_ value: JSONValue) -> ByteBuffer {
        var bytes: [UInt8] = []
        value.writeJSON(to: &bytes)
        return ByteBuffer(bytes: bytes)
    }

    /// A stored value.
    private static func value(_ bytes: ByteBuffer) throws -> JSONValue {
        try bytes.withUnsafeReadableBytes { try JSONValue(parsing: $0) }
    }

    /// A stored object.
    static func object(_ bytes: ByteBuffer) throws -> [String: JSONValue] {
        guard case .object(let members) = try Self.value(bytes) else {
            throw GuildError(.invalidInput, "a stored JSON object is not an object")
        }
        return members
    }
}
