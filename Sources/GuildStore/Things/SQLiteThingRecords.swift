import Foundation
import GRDB
import GuildCore
import GuildJSON

/// The things area's records (`ThingRecords`) in one SQLite transaction: what `tx.things` hands out.
struct SQLiteThingRecords: ThingRecords, SQLiteAreaRecords {
    let tx: SQLiteTransaction
}

extension SQLiteTransaction {
    /// The things area's records in this transaction.
    var things: any ThingRecords { SQLiteThingRecords(tx: self) }
}

extension SQLiteThingRecords {
    // MARK: - Things

    private static let thingColumns =
        "thingID, vendorThingID, passwordHash, thingType, firmwareVersion, properties, created, modified, online, onlineModified, hasState, disabled"

    private static func thing(from row: Row) throws -> Thing {
        Thing(
            thingID: row.text(at: 0) ?? "",
            vendorThingID: row.text(at: 1) ?? "",
            passwordHash: row[2],
            thingType: row.text(at: 3),
            firmwareVersion: row.text(at: 4),
            properties: try StoredJSON.object(row[5]),
            created: row[6],
            modified: row[7],
            online: row[8],
            onlineModified: row[9],
            hasState: row[10],
            disabled: row[11]
        )
    }

    func thing(id: String) throws -> Thing? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.thingColumns) FROM thing WHERE thingID = ?"),
            arguments: StoredText.arguments([id])
        ).map(Self.thing(from:))
    }

    func thing(vendorThingID: String) throws -> Thing? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.thingColumns) FROM thing WHERE vendorThingID = ?"),
            arguments: StoredText.arguments([vendorThingID])
        ).map(Self.thing(from:))
    }

    func thingHasState(id: String) throws -> Bool? {
        try Bool.fetchOne(self.db.cachedStatement(sql: "SELECT hasState FROM thing WHERE thingID = ?"), arguments: StoredText.arguments([id]))
    }

    func markThingHasState(id: String) throws {
        try self.db.cachedStatement(sql: "UPDATE thing SET hasState = 1 WHERE thingID = ?").execute(arguments: StoredText.arguments([id]))
    }

    func insertThing(_ thing: Thing) throws {
        try self.db.cachedStatement(sql: "INSERT INTO thing (\(Self.thingColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(
            arguments: StoredText.arguments([
                thing.thingID, thing.vendorThingID, thing.passwordHash, thing.thingType, thing.firmwareVersion,
                StoredJSON.data(thing.properties), thing.created, thing.modified, thing.online, thing.onlineModified, thing.hasState,
                thing.disabled,
            ])
        )
    }

    func updateThing(_ thing: Thing) throws {
        try self.db.cachedStatement(
            sql: """
                UPDATE thing SET passwordHash = ?, thingType = ?, firmwareVersion = ?, properties = ?, modified = ?, online = ?,
                onlineModified = ?, hasState = ?, disabled = ? WHERE thingID = ?
                """
        ).execute(
            arguments: StoredText.arguments([
                thing.passwordHash, thing.thingType, thing.firmwareVersion, StoredJSON.data(thing.properties), thing.modified,
                thing.online, thing.onlineModified, thing.hasState, thing.disabled, thing.thingID,
            ])
        )
    }

    func deleteThing(id: String) throws {
        // Tokens, owners, commands, states (with their rollups) and triggers go by ON DELETE CASCADE.
        try self.db.cachedStatement(sql: "DELETE FROM thing WHERE thingID = ?").execute(arguments: StoredText.arguments([id]))
    }

    func insertThingToken(hash: [UInt8], thingID: String, now: Int64) throws {
        try self.db.cachedStatement(sql: "INSERT INTO thing_token (hash, thingID, createdAt) VALUES (?, ?, ?)").execute(
            arguments: StoredText.arguments([Data(hash), thingID, now])
        )
    }

    /// The session of a thing's access token (see ``resolveAccessToken(hash:now:)``); `thingDisabled` while the
    /// thing is disabled.
    func resolveThingToken(hash: [UInt8]) throws -> ResolvedSession? {
        guard
            let row = try Row.fetchOne(
                self.db.cachedStatement(
                    sql:
                        "SELECT t.thingID, t.vendorThingID, t.created, t.modified, t.disabled FROM thing_token k JOIN thing t ON t.thingID = k.thingID WHERE k.hash = ?"
                ),
                arguments: [Data(hash)]
            )
        else { return nil }
        if row[4] as Bool { throw ThingService.disabledError(thingID: row.text(at: 0) ?? "") }
        let user = User(
            id: row.text(at: 0) ?? "",
            username: row.text(at: 1),
            isPseudo: false,
            createdAt: row[2],
            modifiedAt: row[3]
        )
        return ResolvedSession(user: user, tokenHash: hash, expiresAt: nil, isThing: true)
    }

    func onlineThingIDs() throws -> [String] {
        try Row.fetchAll(self.db, sql: "SELECT thingID FROM thing WHERE online = 1").compactMap { $0.text(at: 0) }
    }

    // MARK: - Owners

    func thingOwners(thingID: String) throws -> [ThingOwner] {
        try Row.fetchAll(
            self.db.cachedStatement(sql: "SELECT kind, ownerID FROM thing_owner WHERE thingID = ? ORDER BY id"),
            arguments: StoredText.arguments([thingID])
        ).compactMap(Self.owner(from:))
    }

    private static func owner(from row: Row) -> ThingOwner? {
        guard let id = row.text(at: 1) else { return nil }
        return row.text(at: 0) == "group" ? .group(id) : .user(id)
    }

    func insertThingOwner(thingID: String, owner: ThingOwner, now: Int64) throws -> Bool {
        try self.db.cachedStatement(sql: "INSERT OR IGNORE INTO thing_owner (thingID, kind, ownerID, added) VALUES (?, ?, ?, ?)").execute(
            arguments: StoredText.arguments([thingID, owner.kind, owner.id, now])
        )
        return self.db.changesCount > 0
    }

    func deleteThingOwner(thingID: String, owner: ThingOwner) throws -> Bool {
        try self.db.cachedStatement(sql: "DELETE FROM thing_owner WHERE thingID = ? AND kind = ? AND ownerID = ?").execute(
            arguments: StoredText.arguments([thingID, owner.kind, owner.id])
        )
        return self.db.changesCount > 0
    }

    func deleteThingOwnerships(of owner: ThingOwner) throws -> [String] {
        let things = try Row.fetchAll(
            self.db.cachedStatement(sql: "SELECT thingID FROM thing_owner WHERE kind = ? AND ownerID = ? ORDER BY id"),
            arguments: StoredText.arguments([owner.kind, owner.id])
        ).compactMap { $0.text(at: 0) }
        try self.db.cachedStatement(sql: "DELETE FROM thing_owner WHERE kind = ? AND ownerID = ?").execute(
            arguments: StoredText.arguments([owner.kind, owner.id])
        )
        return things
    }

    func things(ownedBy owners: [ThingOwner]) throws -> [Thing] {
        var ids = Set<String>()
        for owner in owners {
            let rows = try Row.fetchAll(
                self.db.cachedStatement(sql: "SELECT thingID FROM thing_owner WHERE kind = ? AND ownerID = ?"),
                arguments: StoredText.arguments([owner.kind, owner.id])
            )
            for row in rows { if let id = row.text(at: 0) { ids.insert(id) } }
        }
        return try ids.sorted().compactMap { try self.thing(id: $0) }
    }

    // MARK: - Commands

    private static let commandColumns =
        "id, commandID, thingID, issuer, request, senderUserID, senderInstallationID, senderIsPseudo, actionResults, state, firedByTriggerID, created, modified"

    private static func command(from row: Row) throws -> ThingCommand {
        let issuerText = row.text(at: 3) ?? ""
        let results: Data? = row[8]
        return ThingCommand(
            commandID: row.text(at: 1) ?? "",
            thingID: row.text(at: 2) ?? "",
            request: try CommandRequest(issuer: issuerText, storedJSON: try StoredJSON.object(row[4])),
            senderUserID: row.text(at: 5),
            senderInstallationID: row.text(at: 6),
            senderIsPseudo: row[7],
            actionResults: try results.map { data in
                guard case .array(let items) = try StoredJSON.value(data) else { return [] }
                return items
            },
            state: CommandState(rawValue: row[9]) ?? .sending,
            firedByTriggerID: row.text(at: 10),
            created: row[11],
            modified: row[12]
        )
    }

    func insertCommand(_ command: ThingCommand) throws {
        try self.db.cachedStatement(
            sql: """
                INSERT INTO thing_command (commandID, thingID, issuer, request, senderUserID, senderInstallationID, senderIsPseudo,
                actionResults, state, firedByTriggerID, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: StoredText.arguments([
                command.commandID, command.thingID, command.request.issuer.description, StoredJSON.data(command.request.storedJSON),
                command.senderUserID, command.senderInstallationID, command.senderIsPseudo,
                command.actionResults.map { StoredJSON.data(.array($0)) }, command.state.rawValue, command.firedByTriggerID,
                command.created, command.modified,
            ])
        )
    }

    func command(thingID: String, commandID: String) throws -> ThingCommand? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.commandColumns) FROM thing_command WHERE commandID = ? AND thingID = ?"),
            arguments: StoredText.arguments([commandID, thingID])
        ).map(Self.command(from:))
    }

    func updateCommand(_ command: ThingCommand) throws {
        try self.db.cachedStatement(sql: "UPDATE thing_command SET actionResults = ?, state = ?, modified = ? WHERE commandID = ?").execute(
            arguments: StoredText.arguments([
                command.actionResults.map { StoredJSON.data(.array($0)) }, command.state.rawValue, command.modified, command.commandID,
            ])
        )
    }

    func commands(thingID: String, before: Int64?, limit: Int) throws -> [(command: ThingCommand, position: Int64)] {
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: "SELECT \(Self.commandColumns) FROM thing_command WHERE thingID = ? AND id < ? ORDER BY id DESC LIMIT ?"
            ),
            arguments: StoredText.arguments([thingID, before ?? Int64.max, limit])
        ).map { row in (try Self.command(from: row), row[0]) }
    }

    func markCommandsDelivered(thingID: String, commandIDs: [String], now: Int64) throws -> Int {
        var moved = 0
        let statement = try self.db.cachedStatement(
            sql: "UPDATE thing_command SET state = 'DELIVERED', modified = ? WHERE commandID = ? AND thingID = ? AND state = 'SENDING'"
        )
        for commandID in commandIDs {
            try statement.execute(arguments: StoredText.arguments([now, commandID, thingID]))
            moved += self.db.changesCount
        }
        return moved
    }

    func pendingCommandCount(thingID: String) throws -> Int {
        // The IN list is the partial index's own condition, word for word, so SQLite uses thing_command_pending.
        try Int.fetchOne(
            self.db.cachedStatement(sql: "SELECT count(*) FROM thing_command WHERE thingID = ? AND state IN ('SENDING', 'DELIVERED')"),
            arguments: StoredText.arguments([thingID])
        ) ?? 0
    }

    func triggerFiringCount(thingID: String, since: Int64) throws -> Int {
        try Int.fetchOne(
            self.db.cachedStatement(
                sql: "SELECT count(*) FROM thing_command WHERE thingID = ? AND firedByTriggerID IS NOT NULL AND created >= ?"
            ),
            arguments: StoredText.arguments([thingID, since])
        ) ?? 0
    }

    // MARK: - States

    @discardableResult
    func insertState(thingID: String, state: ThingState, uploaded: Int64) throws -> Int64 {
        try self.db.cachedStatement(sql: "INSERT INTO thing_state (thingID, timestamp, state, uploaded) VALUES (?, ?, ?, ?)").execute(
            arguments: StoredText.arguments([thingID, state.timestamp, StoredJSON.data(state.state), uploaded])
        )
        let id = self.db.lastInsertedRowID
        if try self.stateRollupsKept() { try self.addToRollups(thingID: thingID, state) }
        return id
    }

    @discardableResult
    func pruneStates(thingID: String, keepCount: Int, before: Int64) throws -> Int {
        // Among the thing's 64 oldest rows (bounded work per upload; after a lower limit the backlog drains 63
        // an upload): those past the newest `keepCount` or too old, never the latest. What they added to the
        // rollups goes with them, when they are kept (the rows come back only then).
        let kept = try self.stateRollupsKept()
        let rows = try Row.fetchAll(
            self.db.cachedStatement(
                sql: """
                    DELETE FROM thing_state WHERE id IN (
                        SELECT id FROM thing_state WHERE thingID = :thing ORDER BY id LIMIT 64
                    ) AND id < (SELECT max(id) FROM thing_state WHERE thingID = :thing) AND (
                        id <= coalesce((SELECT id FROM thing_state WHERE thingID = :thing ORDER BY id DESC LIMIT 1 OFFSET :keep), 0)
                        OR uploaded < :before
                    )
                    RETURNING \(kept ? "timestamp, state" : "1")
                    """
            ),
            arguments: ["thing": StoredText.value(thingID), "keep": keepCount, "before": before]
        )
        guard kept else { return rows.count }
        let removed = try rows.map { row in ThingState(state: try StoredJSON.object(row[1]), timestamp: row[0]) }
        try self.takeFromRollups(thingID: thingID, removed)
        return removed.count
    }

    func state(id: Int64, thingID: String) throws -> [String: JSONValue]? {
        // SQLite gives a deleted thing's highest row ids out again (no AUTOINCREMENT): the thing must match.
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT state FROM thing_state WHERE id = ? AND thingID = ?"),
            arguments: StoredText.arguments([id, thingID])
        ).map { row in try StoredJSON.object(row[0]) }
    }

    func latestState(thingID: String, excluding stateID: Int64?) throws -> ThingState? {
        // Row ids start at 1: excluding 0 excludes nothing.
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT timestamp, state FROM thing_state WHERE thingID = ? AND id <> ? ORDER BY id DESC LIMIT 1"),
            arguments: StoredText.arguments([thingID, stateID ?? 0])
        ).map { row in ThingState(state: try StoredJSON.object(row[1]), timestamp: row[0]) }
    }

    func states(thingID: String, from: Int64, to: Int64, after: Int64?, limit: Int) throws -> [(state: ThingState, position: Int64)] {
        // `+timestamp` keeps the page on the thing's rows by id, in its order, rather than its index by time.
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: """
                    SELECT id, timestamp, state FROM thing_state
                    WHERE thingID = ? AND id > ? AND +timestamp >= ? AND +timestamp <= ? ORDER BY id LIMIT ?
                    """
            ),
            arguments: StoredText.arguments([thingID, after ?? 0, from, to, limit])
        ).map { row in (ThingState(state: try StoredJSON.object(row[2]), timestamp: row[1]), row[0]) }
    }

    // MARK: - Installations

    private static let installationColumns = "installationID, userID, deviceType, registrationID, development, created"

    private static func installation(from row: Row) -> Installation {
        Installation(
            installationID: row.text(at: 0) ?? "",
            userID: row.text(at: 1) ?? "",
            deviceType: row.text(at: 2) ?? "",
            registrationID: row.text(at: 3),
            development: row[4],
            created: row[5]
        )
    }

    func insertInstallation(_ installation: Installation) throws {
        try self.db.cachedStatement(sql: "INSERT INTO installation (\(Self.installationColumns)) VALUES (?, ?, ?, ?, ?, ?)").execute(
            arguments: StoredText.arguments([
                installation.installationID, installation.userID, installation.deviceType, installation.registrationID,
                installation.development, installation.created,
            ])
        )
    }

    func installation(id: String) throws -> Installation? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.installationColumns) FROM installation WHERE installationID = ?"),
            arguments: StoredText.arguments([id])
        ).map(Self.installation(from:))
    }

    func installation(userID: String, deviceType: String, registrationID: String) throws -> Installation? {
        try Row.fetchOne(
            self.db.cachedStatement(
                sql: "SELECT \(Self.installationColumns) FROM installation WHERE userID = ? AND deviceType = ? AND registrationID = ?"
            ),
            arguments: StoredText.arguments([userID, deviceType, registrationID])
        ).map(Self.installation(from:))
    }

    func installations(userID: String) throws -> [Installation] {
        try Row.fetchAll(
            self.db.cachedStatement(sql: "SELECT \(Self.installationColumns) FROM installation WHERE userID = ? ORDER BY created, installationID"),
            arguments: StoredText.arguments([userID])
        ).map(Self.installation(from:))
    }

    func installations(userID: String, after: (created: Int64, installationID: String)?, limit: Int) throws -> [Installation] {
        guard let after else {
            return try Row.fetchAll(
                self.db.cachedStatement(
                    sql: "SELECT \(Self.installationColumns) FROM installation WHERE userID = ? ORDER BY created, installationID LIMIT ?"
                ),
                arguments: StoredText.arguments([userID, limit])
            ).map(Self.installation(from:))
        }
        return try Row.fetchAll(
            self.db.cachedStatement(
                sql: """
                    SELECT \(Self.installationColumns) FROM installation
                    WHERE userID = ? AND (created > ? OR (created = ? AND installationID > ?))
                    ORDER BY created, installationID LIMIT ?
                    """
            ),
            arguments: StoredText.arguments([userID, after.created, after.created, after.installationID, limit])
        ).map(Self.installation(from:))
    }

    /// SQLite has a single writer: nothing to lock.
    func installationCount(userID: String) throws -> Int {
        try Int.fetchOne(
            self.db.cachedStatement(sql: "SELECT count(*) FROM installation WHERE userID = ?"),
            arguments: StoredText.arguments([userID])
        ) ?? 0
    }

    func deleteInstallation(id: String) throws -> Bool {
        try self.db.cachedStatement(sql: "DELETE FROM installation WHERE installationID = ?").execute(arguments: StoredText.arguments([id]))
        return self.db.changesCount > 0
    }

    func deleteInstallations(userID: String) throws {
        try self.db.cachedStatement(sql: "DELETE FROM installation WHERE userID = ?").execute(arguments: StoredText.arguments([userID]))
    }

    // MARK: - Triggers

    /// The columns a trigger is read from, in ``decodeTrigger(_:)``'s order.
    private static let triggerColumns =
        "triggerID, thingID, predicate, action, command, parameters, title, description, enabled, nextFire, creator, created, modified"

    /// A trigger's row (``triggerColumns``) as a trigger.
    private static func decodeTrigger(_ row: Row) throws -> ThingTrigger {
        let predicate = try TriggerPredicate(stored: try StoredJSON.value(row[2]))
        let action: TriggerAction
        if row.text(at: 3) == "NOTIFY" {
            let parameters: Data? = row[5]
            action = .notify(parameters: try parameters.map(StoredJSON.value))
        } else {
            let command = try StoredJSON.object(row[4])
            action = .command(try CommandRequest(issuer: command["issuer"]?.stringValue ?? "", storedJSON: command))
        }
        return ThingTrigger(
            triggerID: row.text(at: 0) ?? "",
            thingID: row.text(at: 1) ?? "",
            predicate: predicate,
            action: action,
            title: row.text(at: 6),
            description: row.text(at: 7),
            enabled: row[8],
            nextFire: row[9],
            creator: row.text(at: 10),
            created: row[11],
            modified: row[12]
        )
    }

    /// A trigger's action as its stored columns: `COMMAND` or `NOTIFY`, the command (its issuer folded in) and
    /// the parameters.
    private static func actionColumns(_ action: TriggerAction) -> (name: String, command: Data?, parameters: Data?) {
        switch action {
        case .command(let request):
            var command = request.storedJSON
            command["issuer"] = .string(request.issuer.description)
            return ("COMMAND", StoredJSON.data(command), nil)
        case .notify(let parameters):
            return ("NOTIFY", nil, parameters.map { StoredJSON.data($0) })
        }
    }

    func insertTrigger(_ trigger: ThingTrigger) throws {
        let action = Self.actionColumns(trigger.action)
        try self.db.cachedStatement(
            sql: """
                INSERT INTO thing_trigger (triggerID, thingID, predicate, action, command, parameters, title, description,
                    enabled, nextFire, creator, created, modified)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: StoredText.arguments([
                trigger.triggerID, trigger.thingID, StoredJSON.data(trigger.predicate.json), action.name, action.command, action.parameters,
                trigger.title, trigger.description, trigger.enabled, trigger.nextFire, trigger.creator, trigger.created, trigger.modified,
            ])
        )
        try self.changeTriggerRevision(thingID: trigger.thingID)
    }

    /// Gives the thing a new trigger revision: random and odd (never 0, which only a thing whose triggers never
    /// changed has), so that a revision a rolled-back transaction wrote is never written again.
    private func changeTriggerRevision(thingID: String) throws {
        try self.db.cachedStatement(sql: "UPDATE thing SET triggerRevision = random() | 1 WHERE thingID = ?").execute(
            arguments: StoredText.arguments([thingID])
        )
    }

    func triggerRevision(thingID: String) throws -> Int64 {
        try Int64.fetchOne(
            self.db.cachedStatement(sql: "SELECT triggerRevision FROM thing WHERE thingID = ?"),
            arguments: StoredText.arguments([thingID])
        ) ?? 0
    }

    func triggers(thingID: String) throws -> [ThingTrigger] {
        try Row.fetchAll(
            self.db.cachedStatement(sql: "SELECT \(Self.triggerColumns) FROM thing_trigger WHERE thingID = ? ORDER BY id"),
            arguments: StoredText.arguments([thingID])
        ).map(Self.decodeTrigger)
    }

    func triggerCount(thingID: String) throws -> Int {
        try Int.fetchOne(
            self.db.cachedStatement(sql: "SELECT count(*) FROM thing_trigger WHERE thingID = ?"),
            arguments: StoredText.arguments([thingID])
        ) ?? 0
    }

    func trigger(thingID: String, triggerID: String) throws -> ThingTrigger? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.triggerColumns) FROM thing_trigger WHERE triggerID = ? AND thingID = ?"),
            arguments: StoredText.arguments([triggerID, thingID])
        ).map(Self.decodeTrigger)
    }

    func stateTriggerRows(thingID: String) throws -> [StateTriggerRow] {
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: "SELECT triggerID, predicate, enabled FROM thing_trigger WHERE thingID = ? AND nextFire IS NULL ORDER BY id"
            ),
            arguments: StoredText.arguments([thingID])
        ).map { row in
            let predicate: Data = row[1]
            return StateTriggerRow(triggerID: row.text(at: 0) ?? "", predicate: [UInt8](predicate), enabled: row[2])
        }
    }

    func updateTrigger(_ trigger: ThingTrigger) throws {
        let action = Self.actionColumns(trigger.action)
        try self.db.cachedStatement(
            sql: """
                UPDATE thing_trigger SET predicate = ?, action = ?, command = ?, parameters = ?, title = ?, description = ?,
                    enabled = ?, nextFire = ?, modified = ?
                WHERE triggerID = ?
                """
        ).execute(
            arguments: StoredText.arguments([
                StoredJSON.data(trigger.predicate.json), action.name, action.command, action.parameters, trigger.title, trigger.description,
                trigger.enabled, trigger.nextFire, trigger.modified, trigger.triggerID,
            ])
        )
        try self.changeTriggerRevision(thingID: trigger.thingID)
    }

    func deleteTrigger(thingID: String, triggerID: String) throws -> Bool {
        // Its firings go by ON DELETE CASCADE.
        try self.db.cachedStatement(sql: "DELETE FROM thing_trigger WHERE thingID = ? AND triggerID = ?").execute(
            arguments: StoredText.arguments([thingID, triggerID])
        )
        guard self.db.changesCount > 0 else { return false }
        try self.changeTriggerRevision(thingID: thingID)
        return true
    }

    func dueTriggers(at now: Int64, limit: Int) throws -> [ThingTrigger] {
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: """
                    SELECT \(Self.triggerColumns) FROM thing_trigger
                    WHERE nextFire IS NOT NULL AND enabled = 1 AND nextFire <= ? ORDER BY nextFire LIMIT ?
                    """
            ),
            arguments: [now, limit]
        ).map(Self.decodeTrigger)
    }

    func earliestDue() throws -> Int64? {
        try Int64.fetchOne(
            self.db.cachedStatement(sql: "SELECT min(nextFire) FROM thing_trigger WHERE nextFire IS NOT NULL AND enabled = 1")
        )
    }

    func advanceSchedule(triggerID: String, from: Int64, to: Int64?) throws -> Bool {
        try self.db.cachedStatement(sql: "UPDATE thing_trigger SET nextFire = ? WHERE triggerID = ? AND nextFire = ?").execute(
            arguments: StoredText.arguments([to, triggerID, from])
        )
        return self.db.changesCount > 0
    }

    @discardableResult
    func insertTriggerFiring(_ firing: TriggerFiring) throws -> Int64 {
        // The ordinal follows the newest kept firing's, found through `thing_trigger_result_trigger`.
        try Int64.fetchAll(
            self.db.cachedStatement(
                sql: """
                    INSERT INTO thing_trigger_result (triggerID, thingID, firedAt, dueAt, cause, outcome, commandID, reason, ordinal)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?,
                        coalesce((SELECT ordinal FROM thing_trigger_result WHERE triggerID = ? ORDER BY id DESC LIMIT 1), 0) + 1)
                    RETURNING ordinal
                    """
            ),
            arguments: StoredText.arguments([
                firing.triggerID, firing.thingID, firing.firedAt, firing.dueAt, firing.cause, firing.outcome.rawValue, firing.commandID,
                firing.reason, firing.triggerID,
            ])
        ).first ?? 0
    }

    func pruneTriggerFirings(triggerID: String, keep: Int) throws {
        try self.db.cachedStatement(
            sql: """
                DELETE FROM thing_trigger_result WHERE triggerID = ? AND id <= (
                    SELECT id FROM thing_trigger_result WHERE triggerID = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
                """
        ).execute(arguments: StoredText.arguments([triggerID, triggerID, keep]))
    }

    func triggerFirings(triggerID: String, before: Int64?, limit: Int) throws -> [(firing: TriggerFiring, position: Int64)] {
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: """
                    SELECT id, triggerID, thingID, firedAt, dueAt, cause, outcome, commandID, reason FROM thing_trigger_result
                    WHERE triggerID = ? AND id < ? ORDER BY id DESC LIMIT ?
                    """
            ),
            arguments: StoredText.arguments([triggerID, before ?? Int64.max, limit])
        ).map { row in
            let firing = TriggerFiring(
                triggerID: row.text(at: 1) ?? "",
                thingID: row.text(at: 2) ?? "",
                firedAt: row[3],
                dueAt: row[4],
                cause: row.text(at: 5) ?? "",
                outcome: TriggerFiring.Outcome(rawValue: row.text(at: 6) ?? "") ?? .skipped,
                commandID: row.text(at: 7),
                reason: row.text(at: 8)
            )
            return (firing, row[0])
        }
    }

    // MARK: - Invariants

    func thingInvariantViolations() throws -> [String] {
        var violations: [String] = []
        let orphans =
            try Int.fetchOne(
                self.db,
                sql: """
                    SELECT count(*) FROM thing_owner o WHERE (o.kind = 'user' AND NOT EXISTS (SELECT 1 FROM "user" u WHERE u.id = o.ownerID))
                    OR (o.kind = 'group' AND NOT EXISTS (SELECT 1 FROM "group" g WHERE g.id = o.ownerID))
                    """
            ) ?? 0
        if orphans > 0 { violations.append("\(orphans) thing ownerships name a user or group that does not exist") }
        let finishedWithoutResults =
            try Int.fetchOne(
                self.db,
                sql: "SELECT count(*) FROM thing_command WHERE state IN ('DONE', 'INCOMPLETE') AND actionResults IS NULL"
            ) ?? 0
        if finishedWithoutResults > 0 { violations.append("\(finishedWithoutResults) finished commands have no results") }
        let stateless =
            try Int.fetchOne(
                self.db,
                sql: "SELECT count(*) FROM thing t WHERE t.hasState = 0 AND EXISTS (SELECT 1 FROM thing_state s WHERE s.thingID = t.thingID)"
            ) ?? 0
        if stateless > 0 { violations.append("\(stateless) things have states but are marked as having none") }
        if try self.stateRollupsKept() {
            let uncounted = try Int.fetchOne(self.db, sql: Self.uncountedMinutes) ?? 0
            if uncounted > 0 { violations.append("\(uncounted) minutes of thing states are not counted right by their rollups") }
        } else {
            let rows = try Int.fetchOne(self.db, sql: "SELECT count(*) FROM thing_state_rollup") ?? 0
            if rows > 0 { violations.append("\(rows) state rollup rows kept while uploads keep none") }
        }
        return violations
    }
}
