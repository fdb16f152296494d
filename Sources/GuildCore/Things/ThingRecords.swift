import GuildJSON

/// The things area's records, on a ``Transaction``: things and their tokens, owners, commands, states,
/// installations and triggers.
public protocol ThingRecords {
    /// A thing by id.
    func thing(id: String) throws -> Thing?
    /// A thing by its vendor's id.
    func thing(vendorThingID: String) throws -> Thing?
    /// Whether the thing has uploaded a state; nil when there is no such thing (a cheap existence check).
    func thingHasState(id: String) throws -> Bool?
    /// Records that the thing has uploaded a state.
    func markThingHasState(id: String) throws
    /// Stores a new thing.
    func insertThing(_ thing: Thing) throws
    /// Writes a thing's password, type, firmware, properties, times, online status, state flag and disabled flag.
    func updateThing(_ thing: Thing) throws
    /// Deletes a thing with its tokens, owners, commands, states and triggers.
    func deleteThing(id: String) throws
    /// Stores the hash of an access token of a thing.
    func insertThingToken(hash: [UInt8], thingID: String, now: Int64) throws
    /// The things marked online.
    func onlineThingIDs() throws -> [String]

    /// Records whether a connection to host `hostID` is bound to the thing (a row per thing and host while one
    /// is, see ``ThingService/setOnline(thingID:_:)``); returns whether any host has the thing bound now.
    func recordThingPresence(_ present: Bool, thingID: String, hostID: String, now: Int64) throws -> Bool
    /// The things host `hostID` has bound (has a presence row for), in id order.
    func thingsPresent(hostID: String) throws -> [String]
    /// Hosts whose lease ended before `now`, and those named `named` (past runs of a host, see
    /// ``PresenceHost/name``) when given; with `unleased`, also hosts with presence rows and no lease (left by a
    /// host that stopped, or written before leases were). `hostID` is never among them. In id order.
    func hostsToReap(before now: Int64, named: String?, unleased: Bool, except hostID: String) throws -> [String]
    /// Moves a host's lease on to `expires` (ms since the Unix epoch); false when the host has no lease (it was
    /// reaped, or never had one), and then it still has none.
    func renewHostLease(hostID: String, expires: Int64) throws -> Bool
    /// Gives a host (named `name`, see ``PresenceHost/name``) a lease until `expires`.
    func insertHostLease(hostID: String, name: String, expires: Int64) throws
    /// Ends a host's lease (its presence rows are removed with ``recordThingPresence(_:thingID:hostID:now:)``).
    func deleteHostLease(hostID: String) throws

    /// A thing's owners, in the order they were added.
    func thingOwners(thingID: String) throws -> [ThingOwner]
    /// Adds an owner; false when it was one.
    func insertThingOwner(thingID: String, owner: ThingOwner, now: Int64) throws -> Bool
    /// Removes an owner; false when it was not one.
    func deleteThingOwner(thingID: String, owner: ThingOwner) throws -> Bool
    /// Removes every ownership of a user or group (deleted); returns the things they owned.
    func deleteThingOwnerships(of owner: ThingOwner) throws -> [String]
    /// The things any of `owners` owns, by id.
    func things(ownedBy owners: [ThingOwner]) throws -> [Thing]

    /// Stores a new command.
    func insertCommand(_ command: ThingCommand) throws
    /// A thing's command by id.
    func command(thingID: String, commandID: String) throws -> ThingCommand?
    /// Writes a command's results, state and modification time.
    func updateCommand(_ command: ThingCommand) throws
    /// A page of a thing's commands, newest first, older than `before` (a command's position) when given;
    /// each with its position.
    func commands(thingID: String, before: Int64?, limit: Int) throws -> [(command: ThingCommand, position: Int64)]
    /// Moves the named commands of a thing from SENDING to DELIVERED; returns how many moved.
    func markCommandsDelivered(thingID: String, commandIDs: [String], now: Int64) throws -> Int
    /// How many of a thing's commands are pending (SENDING or DELIVERED: no results yet); read through an index
    /// of the pending ones, so it costs what the thing has pending (at most ``ThingService/maximumPendingCommands``
    /// and a trigger firing's worth), not its history.
    func pendingCommandCount(thingID: String) throws -> Int
    /// How many of a thing's commands triggers sent (`firedByTriggerID`) created at `since` or later (ms); read
    /// through an index of the fired ones by time.
    func triggerFiringCount(thingID: String, since: Int64) throws -> Int

    /// Stores a state uploaded at `uploaded` (the daemon's clock, ms since the Unix epoch): the latest from now
    /// on, and part of the history, its totals added to its minute's rollups (``StateRollup``) when they are kept
    /// (``stateRollupsKept()``). Returns its row's id.
    @discardableResult
    func insertState(thingID: String, state: ThingState, uploaded: Int64) throws -> Int64
    /// Drops a thing's states beyond the newest `keepCount` and those uploaded before `before` (ms since the
    /// Unix epoch), never the latest, their totals taken from their minutes' rollups (a minute's minimum or
    /// maximum that goes with them is read again from the states left, or marked stale: see
    /// ``StateRollup/upkeep(removed:left:)``) when they are kept; returns how many were dropped.
    @discardableResult
    func pruneStates(thingID: String, keepCount: Int, before: Int64) throws -> Int
    /// Whether the minute rollups are kept (as ``keepStateRollups(_:)`` last recorded; a store fresh from its
    /// migrations keeps them).
    func stateRollupsKept() throws -> Bool
    /// Starts or stops keeping the minute rollups: empties them and, when `kept`, fills them from the states
    /// kept (as the migration that made them did); records the choice.
    func keepStateRollups(_ kept: Bool) throws
    /// A state of the thing's history by its row id, while the history keeps it (the thing is checked too: a
    /// deleted thing's row ids may be used again).
    func state(id: Int64, thingID: String) throws -> [String: JSONValue]?
    /// The latest state but row `stateID` (none excluded when nil): an upload's triggers compare it with the
    /// state before it.
    func latestState(thingID: String, excluding stateID: Int64?) throws -> ThingState?
    /// A page of states with `from <= timestamp <= to`, oldest first, after position `after`; each with its
    /// position.
    func states(thingID: String, from: Int64, to: Int64, after: Int64?, limit: Int) throws -> [(state: ThingState, position: Int64)]
    /// A thing's states with `from <= timestamp <= to`, by timestamp (then upload order), read through the
    /// history's index by time while the rollups are kept (without them, a thing has at most 1,000 states).
    func statesByTime(thingID: String, from: Int64, to: Int64) throws -> [ThingState]
    /// A thing's minute rollups (``StateRollup``) summed per group in one query: for each of `fields`
    /// (``StateRollup/statesField`` for the states' count), the merged totals of its rows for the minutes
    /// `minutes` but those in `excluding`, minute `m` counting in group `((m - minutes.lowerBound) * 60,000 +
    /// lead) / interval`. Groups and fields without rows are left out.
    func stateRollupTotals(
        thingID: String,
        fields: [String],
        minutes: ClosedRange<Int64>,
        excluding: [Int64],
        lead: Int64,
        interval: Int64
    ) throws -> [(group: Int, field: String, totals: FieldTotals)]
    /// The minutes in `minutes` with a stale rollup (a prune took its minimum or maximum; see
    /// ``StateRollup/recountLimit``), in order: a grouped query reads them from the states.
    func staleRollupMinutes(thingID: String, minutes: ClosedRange<Int64>) throws -> [Int64]

    /// Stores a new installation.
    func insertInstallation(_ installation: Installation) throws
    /// An installation by id.
    func installation(id: String) throws -> Installation?
    /// The user's installation of a device type with a registration id.
    func installation(userID: String, deviceType: String, registrationID: String) throws -> Installation?
    /// A user's installations, oldest first.
    func installations(userID: String) throws -> [Installation]
    /// A page of a user's installations, oldest first (ids in byte order among those created at once), after
    /// the position `after` (an installation's creation time and id) when given.
    func installations(userID: String, after: (created: Int64, installationID: String)?, limit: Int) throws -> [Installation]
    /// How many installations a user has. In a write transaction, other transactions that count the same
    /// user's installations wait until this one ends, so a count checked against a bound stays true until the
    /// insert it allows is committed.
    func installationCount(userID: String) throws -> Int
    /// Deletes an installation; false when there was none.
    func deleteInstallation(id: String) throws -> Bool
    /// Deletes a user's installations.
    func deleteInstallations(userID: String) throws

    /// Stores a new trigger, and gives the thing a new trigger revision (``triggerRevision(thingID:)``).
    func insertTrigger(_ trigger: ThingTrigger) throws
    /// A thing's triggers, oldest first.
    func triggers(thingID: String) throws -> [ThingTrigger]
    /// How many triggers a thing has (`trigger.create`'s bound), read from the index without the rows.
    func triggerCount(thingID: String) throws -> Int
    /// A thing's trigger by id.
    func trigger(thingID: String, triggerID: String) throws -> ThingTrigger?
    /// A thing's triggers without a next due time (state predicates, and single times that have fired), oldest
    /// first, as evaluating an upload needs them: no action is read.
    func stateTriggerRows(thingID: String) throws -> [StateTriggerRow]
    /// The thing's trigger revision: 0 for a thing whose triggers never changed, then a new random value with
    /// each ``insertTrigger(_:)``, ``updateTrigger(_:)`` and ``deleteTrigger(thingID:triggerID:)`` (in its
    /// transaction), never with an upload or a schedule's firing; 0 for no thing. ``ThingTriggerSets`` keeps
    /// each thing's compiled triggers by it.
    func triggerRevision(thingID: String) throws -> Int64
    /// Writes a trigger's predicate, action, title, description, enabled flag, next due time and modification
    /// time, and gives its thing a new trigger revision.
    func updateTrigger(_ trigger: ThingTrigger) throws
    /// Deletes a trigger with its firings, giving its thing a new trigger revision; false when there was none.
    func deleteTrigger(thingID: String, triggerID: String) throws -> Bool
    /// Enabled triggers whose schedule is due at `now` (a next due time at or before it), the earliest due
    /// first; read through an index of the due times.
    func dueTriggers(at now: Int64, limit: Int) throws -> [ThingTrigger]
    /// The earliest next due time of an enabled schedule.
    func earliestDue() throws -> Int64?
    /// Moves a schedule's next due time from `from` to `to` (nil: none left), only if it is still `from`; false
    /// when it was not (another host fired it first, or it was changed meanwhile).
    func advanceSchedule(triggerID: String, from: Int64, to: Int64?) throws -> Bool
    /// Stores a firing of a trigger; returns its ordinal among the trigger's firings (one past the newest kept
    /// one's; 1 for the first), which pruning does not change.
    @discardableResult
    func insertTriggerFiring(_ firing: TriggerFiring) throws -> Int64
    /// Drops a trigger's oldest firings beyond the newest `keep`.
    func pruneTriggerFirings(triggerID: String, keep: Int) throws
    /// A page of a trigger's firings, newest first, older than `before` (a firing's position) when given; each
    /// with its position.
    func triggerFirings(triggerID: String, before: Int64?, limit: Int) throws -> [(firing: TriggerFiring, position: Int64)]

    /// Checks the things area's invariants; returns a description of each violation.
    func thingInvariantViolations() throws -> [String]
}

extension ThingRecords {
    /// The latest state.
    public func latestState(thingID: String) throws -> ThingState? {
        try self.latestState(thingID: thingID, excluding: nil)
    }
}
