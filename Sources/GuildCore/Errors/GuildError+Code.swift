// Generated from the error catalog (Sources/GuildProtocol/Methods/Contract/ErrorReason+Catalog.swift) by
// `scripts/gen-contract`. Do not edit: change the source, then run that script again.

extension GuildError {
    /// The kind of failure: a closed set, one case per domain error of the catalog, which gives each its
    /// JSON-RPC code and `data.reason`.
    public enum Code: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// A value failed a domain rule (`field` says which).
        case invalidInput
        /// No session is bound and the call needs one.
        case unauthorized
        /// The login name or password is wrong.
        case invalidCredentials
        /// The access token is unknown, revoked or expired.
        case invalidToken
        /// The refresh token is unknown, already used or revoked.
        case invalidRefreshToken
        /// The caller may not do this.
        case permissionDenied
        /// No such user.
        case userNotFound
        /// A login name, email address or phone number is taken.
        case userAlreadyExists
        /// The user already has a login identity.
        case identityAlreadySet
        /// No such group.
        case groupNotFound
        /// The group id is taken.
        case groupAlreadyExists
        /// No such subscription on this connection.
        case subscriptionNotFound
        /// A subscription's `since` is older than the events kept.
        case cursorExpired
        /// The connection has as many subscriptions as it may.
        case tooManySubscriptions
        /// The database's file system is full: nothing was written.
        case storageFull
        /// The database cannot be reached: nothing was written.
        case storageUnavailable
        /// The connection to the database dropped while committing: the write may or may not be stored.
        case writeOutcomeUnknown
        /// No such object, or one the caller may not read (Kii's OBJECT_NOT_FOUND).
        case objectNotFound
        /// No such bucket, or one the caller may not see (Kii's BUCKET_NOT_FOUND).
        case bucketNotFound
        /// No such ACL entry (Kii's ACL_NOT_FOUND).
        case aclNotFound
        /// An object with that id exists in the bucket (Kii's OBJECT_ALREADY_EXISTS).
        case objectAlreadyExists
        /// `ifVersion` is not the object's version (Kii's OBJECT_VERSION_IS_STALE).
        case objectVersionIsStale
        /// The ACL entry is already granted (Kii's ACL_ALREADY_EXISTS).
        case aclAlreadyExists
        /// The ACL entry is a fixed default (the scope owner's or the creator's) and cannot be revoked.
        case aclEntryFixed
        /// The query uses a clause type Guild does not support (Kii's QUERY_NOT_SUPPORTED).
        case queryNotSupported
        /// An object's JSON is over the size limit.
        case objectTooLarge
        /// No such thing (Kii Thing-IF's THING_NOT_FOUND).
        case thingNotFound
        /// The thing is disabled (Kii's thing status `disabled`): it cannot authenticate or be onboarded.
        case thingDisabled
        /// The user or group does not own the thing.
        case thingOwnershipNotFound
        /// No such command on the thing.
        case commandNotFound
        /// The thing has never uploaded a state (Kii's STATE_NOT_FOUND).
        case stateNotFound
        /// No such trigger on the thing.
        case triggerNotFound
        /// No such installation of the caller.
        case installationNotFound
        /// The owner already owns the thing (Kii's THING_OWNERSHIP_ALREADY_EXISTS).
        case thingOwnershipAlreadyExists
        /// The command's results were already posted.
        case commandAlreadyDone
        /// The thing has never uploaded a state, so it has no history (Kii's STATE_HISTORY_NOT_AVAILABLE).
        case stateHistoryNotAvailable
        /// A state is over 10 KB.
        case stateTooLarge
        /// A per-principal bound on what may be stored is reached (`details`: `limit` and `usage`); nothing was
        /// written.
        case quotaExceeded
        /// An IM group rule's parameter limit (Tencent's 10004): byte limits, invitee counts, attributes.
        case imInvalidParameters
        /// The caller's role in an IM group does not allow this (Tencent's 10007).
        case notAllowed
        /// The group's type does not support the operation (Tencent's 10007).
        case unsupported
        /// The caller (or the user named) is not a member of the IM group (Tencent's 10007).
        case notAMember
        /// The owner may not quit this type of group (Tencent's 10009).
        case ownerCannotQuit
        /// The group was dismissed (Tencent's 10010).
        case groupDismissed
        /// Already a member (Tencent's 10013).
        case alreadyMember
        /// The group is full (Tencent's 10014).
        case groupFull
        /// The IM group id breaks the id rules (Tencent's 10015).
        case invalidGroupID
        /// The sender is muted (Tencent's 10017).
        case muted
        /// The IM group id is taken (Tencent's 10021).
        case groupIDInUse
        /// The application was already handled (Tencent's 10024).
        case alreadyProcessed
        /// Too many attribute writes (Tencent's 10049).
        case attributeRateLimited
        /// A stale attribute write (Tencent's 10056).
        case attributeConflict
        /// The sender sent too many messages this second (Tencent's 10023).
        case sendRateLimited
        /// No such message in the group, or it was recalled (Tencent's 10030).
        case messageNotFound
        /// The sender's recall window is over (Tencent's 10031).
        case recallTimeLimit
        /// The message body is over its size limit (Tencent's 80002).
        case messageTooLong

        public var description: String { self.rawValue }
    }
}
