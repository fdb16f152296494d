/// The stable `data.reason` strings Guild puts in every error it sends (see `protocol/errors.md`).
public enum ErrorReason: Sendable {
    public static let parseError = "PARSE_ERROR"
    public static let nestingTooDeep = "NESTING_TOO_DEEP"
    public static let invalidRequest = "INVALID_REQUEST"
    public static let emptyBatch = "EMPTY_BATCH"
    public static let batchTooLarge = "BATCH_TOO_LARGE"
    public static let frameTooLarge = "FRAME_TOO_LARGE"
    public static let frameTimeout = "FRAME_TIMEOUT"
    public static let methodNotFound = "METHOD_NOT_FOUND"
    public static let invalidParams = "INVALID_PARAMS"
    public static let invalidInputData = "INVALID_INPUT_DATA"
    public static let tooManyItems = "TOO_MANY_ITEMS"
    public static let internalError = "INTERNAL_ERROR"
    public static let tooManyRequests = "TOO_MANY_REQUESTS"
    public static let tooManyConnections = "TOO_MANY_CONNECTIONS"
    public static let shuttingDown = "SHUTTING_DOWN"
    public static let serverBusy = "SERVER_BUSY"
    public static let responseTooLarge = "RESPONSE_TOO_LARGE"
    public static let idleTimeout = "IDLE_TIMEOUT"
    public static let unauthorized = "UNAUTHORIZED"
    public static let invalidCredentials = "INVALID_CREDENTIALS"
    public static let invalidToken = "INVALID_TOKEN"
    public static let invalidRefreshToken = "INVALID_REFRESH_TOKEN"
    public static let permissionDenied = "PERMISSION_DENIED"
    public static let userNotFound = "USER_NOT_FOUND"
    public static let userAlreadyExists = "USER_ALREADY_EXISTS"
    public static let identityAlreadySet = "IDENTITY_ALREADY_SET"
    public static let groupNotFound = "GROUP_NOT_FOUND"
    public static let groupAlreadyExists = "GROUP_ALREADY_EXISTS"
    public static let subscriptionNotFound = "SUBSCRIPTION_NOT_FOUND"
    public static let cursorExpired = "CURSOR_EXPIRED"
    public static let tooManySubscriptions = "TOO_MANY_SUBSCRIPTIONS"
    public static let imInvalidParameters = "INVALID_PARAMETERS"
    public static let notAllowed = "NOT_ALLOWED"
    public static let unsupportedForType = "UNSUPPORTED_FOR_TYPE"
    public static let notAMember = "NOT_A_MEMBER"
    public static let ownerCannotQuit = "OWNER_CANNOT_QUIT"
    public static let groupDismissed = "GROUP_DISMISSED"
    public static let alreadyMember = "ALREADY_MEMBER"
    public static let groupFull = "GROUP_FULL"
    public static let invalidGroupID = "INVALID_GROUP_ID"
    public static let muted = "MUTED"
    public static let groupIDInUse = "GROUP_ID_IN_USE"
    public static let alreadyProcessed = "ALREADY_PROCESSED"
    public static let attributeRateLimited = "ATTRIBUTE_RATE_LIMITED"
    public static let attributeConflict = "ATTRIBUTE_CONFLICT"
    public static let storageFull = "STORAGE_FULL"
    public static let storageUnavailable = "STORAGE_UNAVAILABLE"
    public static let writeOutcomeUnknown = "WRITE_OUTCOME_UNKNOWN"
    public static let objectNotFound = "OBJECT_NOT_FOUND"
    public static let bucketNotFound = "BUCKET_NOT_FOUND"
    public static let aclNotFound = "ACL_NOT_FOUND"
    public static let objectAlreadyExists = "OBJECT_ALREADY_EXISTS"
    public static let objectVersionIsStale = "OBJECT_VERSION_IS_STALE"
    public static let aclAlreadyExists = "ACL_ALREADY_EXISTS"
    public static let aclEntryFixed = "ACL_ENTRY_FIXED"
    public static let queryNotSupported = "QUERY_NOT_SUPPORTED"
    public static let objectTooLarge = "OBJECT_TOO_LARGE"
    public static let numberOutOfRange = "NUMBER_OUT_OF_RANGE"
    public static let sendRateLimited = "SEND_RATE_LIMITED"
    public static let messageNotFound = "MESSAGE_NOT_FOUND"
    public static let recallTimeLimit = "RECALL_TIME_LIMIT"
    public static let messageTooLong = "MESSAGE_TOO_LONG"
    public static let thingNotFound = "THING_NOT_FOUND"
    public static let thingOwnershipNotFound = "THING_OWNERSHIP_NOT_FOUND"
    public static let commandNotFound = "COMMAND_NOT_FOUND"
    public static let stateNotFound = "STATE_NOT_FOUND"
    public static let triggerNotFound = "TRIGGER_NOT_FOUND"
    public static let installationNotFound = "INSTALLATION_NOT_FOUND"
    public static let thingOwnershipAlreadyExists = "THING_OWNERSHIP_ALREADY_EXISTS"
    public static let commandAlreadyDone = "COMMAND_ALREADY_DONE"
    public static let stateHistoryNotAvailable = "STATE_HISTORY_NOT_AVAILABLE"
    public static let stateTooLarge = "STATE_TOO_LARGE"
    public static let quotaExceeded = "QUOTA_EXCEEDED"

    /// Every code with the reasons it may carry, in the order of `protocol/errors.md` (generated from
    /// ``sections``).
    public static let catalog: [(code: ErrorCode, reasons: [String])] = {
        var catalog: [(code: ErrorCode, reasons: [String])] = []
        for entry in sections.flatMap(\.entries) {
            if let index = catalog.firstIndex(where: { $0.code == entry.code }) {
                catalog[index].reasons.append(entry.reason)
            } else {
                catalog.append((entry.code, [entry.reason]))
            }
        }
        return catalog
    }()

    /// The catalog's entry for a reason.
    public static func entry(for reason: String) -> ErrorEntry? {
        entries[reason]
    }

    private static let entries: [String: ErrorEntry] = Dictionary(
        uniqueKeysWithValues: sections.flatMap(\.entries).map { ($0.reason, $0) }
    )
}
