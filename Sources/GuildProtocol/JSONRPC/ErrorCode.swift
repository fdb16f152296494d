/// A JSON-RPC error code: the five the specification defines, Guild's transport codes (-32000 to -32099),
/// and Guild's application codes. Every code and its `data.reason` values are listed in `protocol/errors.md`.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }

    public var description: String { String(self.rawValue) }

    // MARK: - JSON-RPC 2.0

    /// Invalid JSON was received.
    public static let parseError = ErrorCode(rawValue: -32700)
    /// The JSON sent is not a valid request object.
    public static let invalidRequest = ErrorCode(rawValue: -32600)
    /// The method does not exist.
    public static let methodNotFound = ErrorCode(rawValue: -32601)
    /// Invalid method parameters; `data.field` names the offending field.
    public static let invalidParams = ErrorCode(rawValue: -32602)
    /// An internal error; details are logged by the daemon, never sent.
    public static let internalError = ErrorCode(rawValue: -32603)

    // MARK: - Transport limits (-32000 to -32099)

    /// The connection already has as many requests in flight as it may.
    public static let tooManyRequests = ErrorCode(rawValue: -32001)
    /// The daemon already serves as many connections as it may.
    public static let tooManyConnections = ErrorCode(rawValue: -32002)
    /// The daemon is shutting down and did not start the request.
    public static let shuttingDown = ErrorCode(rawValue: -32003)
    /// An expensive method's concurrency bound (per connection, per principal or for the daemon) is reached;
    /// retry later. `data.scope` says which bound, `data.limit` its value.
    public static let serverBusy = ErrorCode(rawValue: -32004)
    /// A batch's replies would exceed `--max-batch-reply-bytes`; the entries past it get this error.
    public static let responseTooLarge = ErrorCode(rawValue: -32005)
    /// The connection sat idle without a session, a subscription or admin rights for `--idle-timeout`; it is
    /// closed after this error (sent with `"id": null`).
    public static let idleTimeout = ErrorCode(rawValue: -32006)

    // MARK: - Application

    /// The call needs a session (`session.authenticate`, `user.login`, ...) and the connection has none.
    public static let unauthorized = ErrorCode(rawValue: 40101)
    /// Wrong login name or password.
    public static let invalidCredentials = ErrorCode(rawValue: 40102)
    /// The access token is unknown, revoked or expired.
    public static let invalidToken = ErrorCode(rawValue: 40103)
    /// The refresh token is unknown, already used or revoked.
    public static let invalidRefreshToken = ErrorCode(rawValue: 40104)
    /// The caller may not do this.
    public static let permissionDenied = ErrorCode(rawValue: 40301)
    /// No such user.
    public static let userNotFound = ErrorCode(rawValue: 40401)
    /// The login name, email address or phone number is taken.
    public static let userAlreadyExists = ErrorCode(rawValue: 40901)
    /// The user already has a login identity (`user.putIdentity` upgrades pseudo users only).
    public static let identityAlreadySet = ErrorCode(rawValue: 40902)
    /// No such group.
    public static let groupNotFound = ErrorCode(rawValue: 40402)
    /// The group id is taken.
    public static let groupAlreadyExists = ErrorCode(rawValue: 40903)
    /// No such subscription on this connection.
    public static let subscriptionNotFound = ErrorCode(rawValue: 40404)
    /// `since` is older than the oldest event kept; `data.oldestSeq` says where the log starts.
    public static let cursorExpired = ErrorCode(rawValue: 41001)
    /// The connection has as many subscriptions as it may.
    public static let tooManySubscriptions = ErrorCode(rawValue: 42901)

    // MARK: - IM groups (Tencent Cloud IM's numbers)

    /// Invalid parameters for an IM group rule: a profile field over its byte limit, too many invitees,
    /// attribute limits, a role that cannot be given.
    public static let imInvalidParameters = ErrorCode(rawValue: 10004)
    /// Not allowed: the caller's role may not do this, or the group's type does not support it.
    public static let imNotAllowed = ErrorCode(rawValue: 10007)
    /// The owner may not quit this type of group (transfer ownership or dismiss it).
    public static let ownerCannotQuit = ErrorCode(rawValue: 10009)
    /// The group was dismissed.
    public static let groupDismissed = ErrorCode(rawValue: 10010)
    /// The user is already a member.
    public static let alreadyMember = ErrorCode(rawValue: 10013)
    /// The group has as many members as its type allows.
    public static let groupFull = ErrorCode(rawValue: 10014)
    /// The group id breaks the IM id rules.
    public static let invalidGroupID = ErrorCode(rawValue: 10015)
    /// The sender is muted (or the whole group is).
    public static let muted = ErrorCode(rawValue: 10017)
    /// The IM group id is taken.
    public static let groupIDInUse = ErrorCode(rawValue: 10021)
    /// The application was already handled.
    public static let alreadyProcessed = ErrorCode(rawValue: 10024)
    /// Too many attribute writes to this group in the current window.
    public static let attributeRateLimited = ErrorCode(rawValue: 10049)
    /// The attributes changed since the version the write was based on.
    public static let attributeConflict = ErrorCode(rawValue: 10056)

    /// No such object, or one the caller may not read.
    public static let objectNotFound = ErrorCode(rawValue: 40405)
    /// No such bucket, or one the caller may not see.
    public static let bucketNotFound = ErrorCode(rawValue: 40406)
    /// No such ACL entry.
    public static let aclNotFound = ErrorCode(rawValue: 40407)
    /// An object with that id exists.
    public static let objectAlreadyExists = ErrorCode(rawValue: 40904)
    /// The object changed since the version the write was based on.
    public static let objectVersionIsStale = ErrorCode(rawValue: 40905)
    /// The ACL entry is already granted.
    public static let aclAlreadyExists = ErrorCode(rawValue: 40906)
    /// The ACL entry is a fixed default.
    public static let aclEntryFixed = ErrorCode(rawValue: 40907)
    /// The query uses an unsupported clause.
    public static let queryNotSupported = ErrorCode(rawValue: 40001)
    /// The object is over the size limit.
    public static let objectTooLarge = ErrorCode(rawValue: 41301)
    /// The sender sent too many group messages this second.
    public static let sendRateLimited = ErrorCode(rawValue: 10023)
    /// No such message in the group (or it was already recalled).
    public static let messageNotFound = ErrorCode(rawValue: 10030)
    /// The message is older than the sender's recall window.
    public static let recallTimeLimit = ErrorCode(rawValue: 10031)
    /// The message body is over its size limit.
    public static let messageTooLong = ErrorCode(rawValue: 80002)

    /// No such thing.
    public static let thingNotFound = ErrorCode(rawValue: 40408)
    /// The thing is disabled: it cannot authenticate or be onboarded.
    public static let thingDisabled = ErrorCode(rawValue: 40302)
    /// The user or group does not own the thing.
    public static let thingOwnershipNotFound = ErrorCode(rawValue: 40409)
    /// No such command.
    public static let commandNotFound = ErrorCode(rawValue: 40410)
    /// The thing has no state yet.
    public static let stateNotFound = ErrorCode(rawValue: 40411)
    /// No such trigger.
    public static let triggerNotFound = ErrorCode(rawValue: 40412)
    /// No such installation.
    public static let installationNotFound = ErrorCode(rawValue: 40413)
    /// The owner already owns the thing.
    public static let thingOwnershipAlreadyExists = ErrorCode(rawValue: 40908)
    /// The command's results were already posted.
    public static let commandAlreadyDone = ErrorCode(rawValue: 40909)
    /// The thing has never uploaded a state.
    public static let stateHistoryNotAvailable = ErrorCode(rawValue: 40910)
    /// The state is over 10 KB.
    public static let stateTooLarge = ErrorCode(rawValue: 41302)
    /// A per-principal bound on what may be stored is reached: nothing was written.
    public static let quotaExceeded = ErrorCode(rawValue: 42902)

    /// The database's file system is full: the write was not stored (reads still work). Retry once space is freed.
    public static let storageFull = ErrorCode(rawValue: 50701)
    /// The database cannot be reached (a PostgreSQL server stopped or restarting): nothing was written. Retry.
    public static let storageUnavailable = ErrorCode(rawValue: 50301)
    /// The connection to the database dropped while the write was committing: it may or may not be stored.
    public static let writeOutcomeUnknown = ErrorCode(rawValue: 50302)
}
