// Generated from the error catalog (Sources/GuildProtocol/Methods/Contract/ErrorReason+Catalog.swift) by
// `scripts/gen-contract`. Do not edit: change the source, then run that script again.

/// The stable `data.reason` strings Guild puts in every error it sends (see `protocol/errors.md`).
public enum ErrorReason: Sendable {
    /// Code -32700, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let parseError = "PARSE_ERROR"
    /// Code -32700, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let nestingTooDeep = "NESTING_TOO_DEEP"
    /// Code -32600, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let invalidRequest = "INVALID_REQUEST"
    /// Code -32600, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let emptyBatch = "EMPTY_BATCH"
    /// Code -32600, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let batchTooLarge = "BATCH_TOO_LARGE"
    /// Code -32600, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let frameTooLarge = "FRAME_TOO_LARGE"
    /// Code -32600, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let frameTimeout = "FRAME_TIMEOUT"
    /// Code -32601, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let methodNotFound = "METHOD_NOT_FOUND"
    /// Code -32602, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let invalidParams = "INVALID_PARAMS"
    /// Code -32602, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let tooManyItems = "TOO_MANY_ITEMS"
    /// Code -32602, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let invalidInputData = "INVALID_INPUT_DATA"
    /// Code -32602, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let numberOutOfRange = "NUMBER_OUT_OF_RANGE"
    /// Code -32603, in "JSON-RPC 2.0 codes" of `protocol/errors.md`.
    public static let internalError = "INTERNAL_ERROR"
    /// Code -32001, in "Transport limits (-32000 to -32099)" of `protocol/errors.md`.
    public static let tooManyRequests = "TOO_MANY_REQUESTS"
    /// Code -32002, in "Transport limits (-32000 to -32099)" of `protocol/errors.md`.
    public static let tooManyConnections = "TOO_MANY_CONNECTIONS"
    /// Code -32003, in "Transport limits (-32000 to -32099)" of `protocol/errors.md`.
    public static let shuttingDown = "SHUTTING_DOWN"
    /// Code -32004, in "Transport limits (-32000 to -32099)" of `protocol/errors.md`.
    public static let serverBusy = "SERVER_BUSY"
    /// Code -32005, in "Transport limits (-32000 to -32099)" of `protocol/errors.md`.
    public static let responseTooLarge = "RESPONSE_TOO_LARGE"
    /// Code -32006, in "Transport limits (-32000 to -32099)" of `protocol/errors.md`.
    public static let idleTimeout = "IDLE_TIMEOUT"
    /// Code 40101, in "Application codes" of `protocol/errors.md`.
    public static let unauthorized = "UNAUTHORIZED"
    /// Code 40102, in "Application codes" of `protocol/errors.md`.
    public static let invalidCredentials = "INVALID_CREDENTIALS"
    /// Code 40103, in "Application codes" of `protocol/errors.md`.
    public static let invalidToken = "INVALID_TOKEN"
    /// Code 40104, in "Application codes" of `protocol/errors.md`.
    public static let invalidRefreshToken = "INVALID_REFRESH_TOKEN"
    /// Code 40301, in "Application codes" of `protocol/errors.md`.
    public static let permissionDenied = "PERMISSION_DENIED"
    /// Code 40401, in "Application codes" of `protocol/errors.md`.
    public static let userNotFound = "USER_NOT_FOUND"
    /// Code 40901, in "Application codes" of `protocol/errors.md`.
    public static let userAlreadyExists = "USER_ALREADY_EXISTS"
    /// Code 40902, in "Application codes" of `protocol/errors.md`.
    public static let identityAlreadySet = "IDENTITY_ALREADY_SET"
    /// Code 40402, in "Application codes" of `protocol/errors.md`.
    public static let groupNotFound = "GROUP_NOT_FOUND"
    /// Code 40903, in "Application codes" of `protocol/errors.md`.
    public static let groupAlreadyExists = "GROUP_ALREADY_EXISTS"
    /// Code 40404, in "Application codes" of `protocol/errors.md`.
    public static let subscriptionNotFound = "SUBSCRIPTION_NOT_FOUND"
    /// Code 41001, in "Application codes" of `protocol/errors.md`.
    public static let cursorExpired = "CURSOR_EXPIRED"
    /// Code 42901, in "Application codes" of `protocol/errors.md`.
    public static let tooManySubscriptions = "TOO_MANY_SUBSCRIPTIONS"
    /// Code 50701, in "Application codes" of `protocol/errors.md`.
    public static let storageFull = "STORAGE_FULL"
    /// Code 50301, in "Application codes" of `protocol/errors.md`.
    public static let storageUnavailable = "STORAGE_UNAVAILABLE"
    /// Code 50302, in "Application codes" of `protocol/errors.md`.
    public static let writeOutcomeUnknown = "WRITE_OUTCOME_UNKNOWN"
    /// Code 40405, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let objectNotFound = "OBJECT_NOT_FOUND"
    /// Code 40406, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let bucketNotFound = "BUCKET_NOT_FOUND"
    /// Code 40407, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let aclNotFound = "ACL_NOT_FOUND"
    /// Code 40904, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let objectAlreadyExists = "OBJECT_ALREADY_EXISTS"
    /// Code 40905, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let objectVersionIsStale = "OBJECT_VERSION_IS_STALE"
    /// Code 40906, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let aclAlreadyExists = "ACL_ALREADY_EXISTS"
    /// Code 40907, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let aclEntryFixed = "ACL_ENTRY_FIXED"
    /// Code 40001, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let queryNotSupported = "QUERY_NOT_SUPPORTED"
    /// Code 41301, in "Object and ACL codes (Kii's names)" of `protocol/errors.md`.
    public static let objectTooLarge = "OBJECT_TOO_LARGE"
    /// Code 40408, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let thingNotFound = "THING_NOT_FOUND"
    /// Code 40302, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let thingDisabled = "THING_DISABLED"
    /// Code 40409, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let thingOwnershipNotFound = "THING_OWNERSHIP_NOT_FOUND"
    /// Code 40410, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let commandNotFound = "COMMAND_NOT_FOUND"
    /// Code 40411, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let stateNotFound = "STATE_NOT_FOUND"
    /// Code 40412, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let triggerNotFound = "TRIGGER_NOT_FOUND"
    /// Code 40413, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let installationNotFound = "INSTALLATION_NOT_FOUND"
    /// Code 40908, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let thingOwnershipAlreadyExists = "THING_OWNERSHIP_ALREADY_EXISTS"
    /// Code 40909, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let commandAlreadyDone = "COMMAND_ALREADY_DONE"
    /// Code 40910, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let stateHistoryNotAvailable = "STATE_HISTORY_NOT_AVAILABLE"
    /// Code 41302, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let stateTooLarge = "STATE_TOO_LARGE"
    /// Code 42902, in "Thing codes (Kii Thing-IF's names)" of `protocol/errors.md`.
    public static let quotaExceeded = "QUOTA_EXCEEDED"
    /// Code 10004, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let invalidParameters = "INVALID_PARAMETERS"
    /// Code 10007, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let notAllowed = "NOT_ALLOWED"
    /// Code 10007, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let unsupportedForType = "UNSUPPORTED_FOR_TYPE"
    /// Code 10007, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let notAMember = "NOT_A_MEMBER"
    /// Code 10009, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let ownerCannotQuit = "OWNER_CANNOT_QUIT"
    /// Code 10010, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let groupDismissed = "GROUP_DISMISSED"
    /// Code 10013, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let alreadyMember = "ALREADY_MEMBER"
    /// Code 10014, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let groupFull = "GROUP_FULL"
    /// Code 10015, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let invalidGroupID = "INVALID_GROUP_ID"
    /// Code 10017, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let muted = "MUTED"
    /// Code 10021, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let groupIDInUse = "GROUP_ID_IN_USE"
    /// Code 10024, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let alreadyProcessed = "ALREADY_PROCESSED"
    /// Code 10049, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let attributeRateLimited = "ATTRIBUTE_RATE_LIMITED"
    /// Code 10056, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let attributeConflict = "ATTRIBUTE_CONFLICT"
    /// Code 10023, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let sendRateLimited = "SEND_RATE_LIMITED"
    /// Code 10030, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let messageNotFound = "MESSAGE_NOT_FOUND"
    /// Code 10031, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let recallTimeLimit = "RECALL_TIME_LIMIT"
    /// Code 80002, in "IM group codes (Tencent Cloud IM's numbers)" of `protocol/errors.md`.
    public static let messageTooLong = "MESSAGE_TOO_LONG"
}
