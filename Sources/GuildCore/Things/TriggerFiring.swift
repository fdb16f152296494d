/// One firing of a trigger, or one it skipped or missed, as `trigger.results` lists them: when, why, what it did
/// and how that went. The history stays when the trigger is patched, and goes with the trigger.
public struct TriggerFiring: Sendable, Hashable {
    /// How a firing ended.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// The command was stored and sent (`commandID` names it).
        case commandSent = "COMMAND_SENT"
        /// The `triggerFired` event was appended.
        case notified = "NOTIFIED"
        /// It fired but did nothing: a bound was reached or the issuer is no longer an owner (`reason`).
        case skipped = "SKIPPED"
        /// A schedule came due while the daemon was down and was found later than the catch-up window allows
        /// (``ScheduleCatchUp``): it did not fire.
        case missed = "MISSED"
    }

    public var triggerID: String
    public var thingID: String
    /// When it was evaluated (the daemon's clock, ms since the Unix epoch).
    public var firedAt: Int64
    /// The time a schedule was due, for schedules; nil for a state upload.
    public var dueAt: Int64?
    /// Why: the predicate's event source (`STATES`, `SCHEDULE`, `SCHEDULE_ONCE`).
    public var cause: String
    public var outcome: Outcome
    /// The command sent, for ``Outcome/commandSent``.
    public var commandID: String?
    /// Why nothing was done, for ``Outcome/skipped`` and ``Outcome/missed``: `pendingCommands`, `firingRate`,
    /// `storageQuota`, `issuerNotOwner`, `thingDisabled` or `outsideCatchUpWindow`.
    public var reason: String?

    public init(
        triggerID: String,
        thingID: String,
        firedAt: Int64,
        dueAt: Int64?,
        cause: String,
        outcome: Outcome,
        commandID: String? = nil,
        reason: String? = nil
    ) {
        self.triggerID = triggerID
        self.thingID = thingID
        self.firedAt = firedAt
        self.dueAt = dueAt
        self.cause = cause
        self.outcome = outcome
        self.commandID = commandID
        self.reason = reason
    }
}
