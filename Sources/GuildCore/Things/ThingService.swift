import Foundation
import GuildJSON

/// Kii Thing-IF's things (see protocol/things.md): onboarding, owners, commands with results, states,
/// installations, triggers and connectivity. Concerns are in extensions: `+Lifecycle`, `+Owners`, `+Commands`,
/// `+States`, `+Triggers`, `+Installations`, `+Presence` and `+Deletion`.
///
/// Who may do what: a thing's owners (users, and the members of owner groups at the moment of each check),
/// the thing itself (a connection bound with its token) and app admins may read a thing, its commands and
/// states; only owners send commands (as an issuer that is an owner), only the thing posts results.
public struct ThingService: Sendable {
    /// Where things live.
    public var store: any Store
    /// Hashes thing passwords.
    public var hasher: any PasswordHashing
    /// Bumped when a thing is deleted, so connections bound to it are unbound on their next call.
    public var generations: SessionGenerations
    /// Whether `thing.addOwner` needs the thing's password (`--require-thing-password-for-ownership`).
    public var requirePasswordForOwnership: Bool
    /// The current time in ms since the Unix epoch.
    public var now: @Sendable () -> Int64
    /// Seals the paging keys of states and commands.
    public var pageKeys: PageKeys = .process
    /// How much state history each thing keeps.
    public var stateHistory: StateHistoryLimits = .standard
    /// The bytes each owner may store: a command that grows its thing's usage past it is refused (sent) or
    /// skipped (fired).
    public var storageQuota: StorageQuota = .standard
    /// The time zone of schedules created without one (the daemon's); stated in the trigger's predicate.
    public var timeZone: TimeZone = .current
    /// The name ``timeZone`` is stated by (nil: its identifier): `TZ=UTC` names a zone Foundation on Linux calls
    /// `GMT`.
    public var timeZoneName: String?
    /// How late a schedule found due may still fire (after the daemon was down at its time).
    public var scheduleCatchUp: ScheduleCatchUp = .standard
    /// Woken when a schedule is created or changed, so the runner sleeps until the earliest due time.
    public var scheduleWake: ScheduleWake?
    /// The state conditions of triggers, compiled once (shared by copies of this service).
    public var triggerConditions = TriggerConditions()
    /// Each thing's compiled state triggers, by its trigger revision (shared by copies of this service).
    public var triggerSets = ThingTriggerSets()
    /// This daemon among the hosts sharing the store, for thing presence (a new id with each run).
    public var presenceHost = PresenceHost()

    /// Creates the service.
    public init(
        store: any Store,
        hasher: any PasswordHashing,
        generations: SessionGenerations,
        requirePasswordForOwnership: Bool = false,
        stateHistory: StateHistoryLimits = .standard,
        storageQuota: StorageQuota = .standard,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.store = store
        self.hasher = hasher
        self.generations = generations
        self.requirePasswordForOwnership = requirePasswordForOwnership
        self.stateHistory = stateHistory
        self.storageQuota = storageQuota
        self.now = now
    }

    // MARK: - Onboarding

    /// Onboards a thing for `owner`: registers it at its first onboarding (its password sticks), or, when the
    /// vendorThingID is known, checks the password and adds the owner. Returns the thing and a new access
    /// token for it. A wrong password is `invalidCredentials`, saying nothing about which part was wrong.
    public func onboard(
        caller: Caller,
        vendorThingID: String,
        password: String,
        owner: ThingOwner,
        thingType: String?,
        firmwareVersion: String?,
        properties: [String: JSONValue]?
    ) async throws -> (thing: Thing, accessToken: Token) {
        try ThingRules.checkVendorThingID(vendorThingID)
        try ThingRules.checkPassword(password)
        try ThingRules.checkPredefined(thingType, field: "thingType")
        try ThingRules.checkPredefined(firmwareVersion, field: "firmwareVersion")
        let properties = try ThingRules.properties(properties)
        let existing = try await self.store.read { try $0.things.thing(vendorThingID: vendorThingID) }
        var verifiedHash: String
        if let existing {
            guard await self.hasher.verify(password, against: existing.passwordHash) else { throw Self.wrongCredentials }
            verifiedHash = existing.passwordHash
        } else {
            verifiedHash = try await self.hasher.hash(password)
        }
        let token = Token.generate()
        let now = self.now()
        let hash = verifiedHash
        let thing = try await self.store.write { tx in
            try Self.requireOwnerRights(caller, owner, tx)
            var thing: Thing
            if let known = try tx.things.thing(vendorThingID: vendorThingID) {
                // Known, or onboarded meanwhile: the password checked must be the one that stuck.
                guard known.passwordHash == hash else { throw Self.wrongCredentials }
                guard !known.disabled else { throw Self.disabledError(thingID: known.thingID) }
                thing = known
            } else {
                guard existing == nil else { throw Self.wrongCredentials }
                thing = Thing(
                    thingID: Self.newID(prefix: "th."),
                    vendorThingID: vendorThingID,
                    passwordHash: hash,
                    thingType: thingType,
                    firmwareVersion: firmwareVersion,
                    properties: properties,
                    created: now,
                    modified: now
                )
                try tx.things.insertThing(thing)
            }
            try tx.things.insertThingToken(hash: token.hash, thingID: thing.thingID, now: now)
            if try tx.things.insertThingOwner(thingID: thing.thingID, owner: owner, now: now) {
                try Self.appendOwnerChange(.thingOwnerAdded, thing.thingID, owner, tx, now)
            }
            return thing
        }
        return (thing, token)
    }

    /// An app admin sets a thing's password (later onboardings must present the new one).
    public func setPassword(caller: Caller, thingID: String, password: String) async throws {
        guard caller.isAdmin else { throw GuildError(.permissionDenied, "only an app admin may change a thing's password") }
        try ThingRules.checkPassword(password)
        let hash = try await self.hasher.hash(password)
        let now = self.now()
        try await self.store.write { tx in
            var thing = try Self.requireThing(thingID, tx)
            thing.passwordHash = hash
            thing.modified = now
            try tx.things.updateThing(thing)
        }
    }

    // MARK: - Reading

    /// A thing's record: for its owners, the thing itself and admins.
    public func get(caller: Caller, thingID: String) async throws -> Thing {
        try await self.store.read { tx in
            let thing = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thing.thingID, tx)
            return thing
        }
    }

    /// The things a user owns, directly or through a group they are a member of now: the user themself or
    /// an admin.
    public func ownedThings(caller: Caller, userID: String?) async throws -> [Thing] {
        let target = try caller.target(userID)
        return try await self.store.read { tx in
            guard try tx.groups.userExists(target) else { throw GuildError(.userNotFound, "no user with id \(target)", field: "userID") }
            let owners = [ThingOwner.user(target)] + (try tx.groups.memberships(userID: target)).map { ThingOwner.group($0.groupID) }
            return try tx.things.things(ownedBy: owners)
        }
    }

    // MARK: - Rules

    /// The error for a wrong thing password or vendorThingID.
    static let wrongCredentials = GuildError(.invalidCredentials, "wrong vendorThingID or thing password")

    /// Whether the thing has a state, or `thingNotFound` (cheaper than reading the thing).
    @discardableResult
    static func requireThingExists(_ thingID: String, _ tx: any Transaction) throws -> Bool {
        guard let hasState = try tx.things.thingHasState(id: thingID) else {
            throw GuildError(.thingNotFound, "no thing with id \(thingID)", field: "thingID")
        }
        return hasState
    }

    /// The thing, or `thingNotFound`.
    static func requireThing(_ thingID: String, _ tx: any Transaction) throws -> Thing {
        guard let thing = try tx.things.thing(id: thingID) else {
            throw GuildError(.thingNotFound, "no thing with id \(thingID)", field: "thingID")
        }
        return thing
    }

    /// Whether the calling user owns the thing: directly, or as a member of an owner group now.
    static func callerOwns(_ caller: Caller, _ thingID: String, _ tx: any Transaction) throws -> Bool {
        guard let userID = caller.session?.user.id else { return false }
        for owner in try tx.things.thingOwners(thingID: thingID) {
            switch owner {
            case .user(let id): if id == userID { return true }
            case .group(let id): if try tx.groups.membership(groupID: id, userID: userID) != nil { return true }
            }
        }
        return false
    }

    /// Owners, the thing itself and admins pass; others get `permissionDenied` (`unauthorized` with no
    /// session).
    static func requireOwnerOrThing(_ caller: Caller, _ thingID: String, _ tx: any Transaction) throws {
        if caller.isAdmin || caller.thingID == thingID { return }
        try Self.requireOwner(caller, thingID, tx)
    }

    /// Owners and admins pass.
    static func requireOwner(_ caller: Caller, _ thingID: String, _ tx: any Transaction) throws {
        if caller.isAdmin { return }
        guard caller.principalID != nil else {
            throw GuildError(.unauthorized, "this call needs a session: call session.authenticate first")
        }
        guard try Self.callerOwns(caller, thingID, tx) else {
            throw GuildError(.permissionDenied, "only the thing's owners may do this")
        }
    }

    /// Whether the caller may act for `owner`: the user themself, a member of the group, or an admin. The
    /// owner must exist.
    static func requireOwnerRights(_ caller: Caller, _ owner: ThingOwner, _ tx: any Transaction) throws {
        switch owner {
        case .user(let id):
            guard try tx.groups.userExists(id) else { throw GuildError(.userNotFound, "no user with id \(id)", field: "owner") }
            if caller.isAdmin { return }
            guard caller.session?.user.id == id else {
                throw GuildError(.permissionDenied, "a user may act as user:\(id) only with their own session", field: "owner")
            }
        case .group(let id):
            guard try tx.groups.groupOwnership(id) != nil else { throw GuildError(.groupNotFound, "no group with id \(id)", field: "owner") }
            if caller.isAdmin { return }
            guard let userID = caller.session?.user.id, try tx.groups.membership(groupID: id, userID: userID) != nil else {
                throw GuildError(.permissionDenied, "only a member of group \(id) may act as it", field: "owner")
            }
        }
    }

    /// Appends an owner added or removed event, to the thing's owners (the one changed included) and the thing.
    static func appendOwnerChange(_ kind: ThingEvent.Kind, _ thingID: String, _ owner: ThingOwner, _ tx: any Transaction, _ now: Int64) throws {
        let owners = try tx.things.thingOwners(thingID: thingID) + [owner]
        try tx.append(
            ThingEvent(
                kind: kind,
                thingID: thingID,
                time: now,
                audience: .owners(owners, plus: [thingID]),
                members: ["owner": .string(owner.description)]
            )
        )
    }

    /// A new id: `prefix` and 32 hex digits.
    static func newID(prefix: String) -> String {
        prefix + RandomID.hex()
    }
}
