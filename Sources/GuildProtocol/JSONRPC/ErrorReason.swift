/// The stable `data.reason` strings Guild puts in every error it sends (see `protocol/errors.md`).
public enum ErrorReason: Sendable {
    public static let parseError = "PARSE_ERROR"
    public static let nestingTooDeep = "NESTING_TOO_DEEP"
    public static let invalidRequest = "INVALID_REQUEST"
    public static let emptyBatch = "EMPTY_BATCH"
    public static let batchTooLarge = "BATCH_TOO_LARGE"
    public static let frameTooLarge = "FRAME_TOO_LARGE"
    public static let methodNotFound = "METHOD_NOT_FOUND"
    public static let invalidParams = "INVALID_PARAMS"
    public static let invalidInputData = "INVALID_INPUT_DATA"
    public static let internalError = "INTERNAL_ERROR"
    public static let tooManyRequests = "TOO_MANY_REQUESTS"
    public static let tooManyConnections = "TOO_MANY_CONNECTIONS"
    public static let shuttingDown = "SHUTTING_DOWN"
    public static let unauthorized = "UNAUTHORIZED"
    public static let invalidCredentials = "INVALID_CREDENTIALS"
    public static let invalidToken = "INVALID_TOKEN"
    public static let invalidRefreshToken = "INVALID_REFRESH_TOKEN"
    public static let permissionDenied = "PERMISSION_DENIED"
    public static let userNotFound = "USER_NOT_FOUND"
    public static let userAlreadyExists = "USER_ALREADY_EXISTS"
    public static let identityAlreadySet = "IDENTITY_ALREADY_SET"
    public static let unsupported = "UNSUPPORTED"
    public static let groupNotFound = "GROUP_NOT_FOUND"
    public static let groupAlreadyExists = "GROUP_ALREADY_EXISTS"
    public static let subscriptionNotFound = "SUBSCRIPTION_NOT_FOUND"
    public static let cursorExpired = "CURSOR_EXPIRED"
    public static let tooManySubscriptions = "TOO_MANY_SUBSCRIPTIONS"

    /// Every code with the reasons it may carry: the catalog `protocol/errors.md` documents (a test checks both agree).
    public static let catalog: [(code: ErrorCode, reasons: [String])] = [
        (.parseError, [parseError, nestingTooDeep]),
        (.invalidRequest, [invalidRequest, emptyBatch, batchTooLarge, frameTooLarge]),
        (.methodNotFound, [methodNotFound]),
        (.invalidParams, [invalidParams, invalidInputData, unsupported]),
        (.internalError, [internalError]),
        (.tooManyRequests, [tooManyRequests]),
        (.tooManyConnections, [tooManyConnections]),
        (.shuttingDown, [shuttingDown]),
        (.unauthorized, [unauthorized]),
        (.invalidCredentials, [invalidCredentials]),
        (.invalidToken, [invalidToken]),
        (.invalidRefreshToken, [invalidRefreshToken]),
        (.permissionDenied, [permissionDenied]),
        (.userNotFound, [userNotFound]),
        (.userAlreadyExists, [userAlreadyExists]),
        (.identityAlreadySet, [identityAlreadySet]),
        (.groupNotFound, [groupNotFound]),
        (.groupAlreadyExists, [groupAlreadyExists]),
        (.subscriptionNotFound, [subscriptionNotFound]),
        (.cursorExpired, [cursorExpired]),
        (.tooManySubscriptions, [tooManySubscriptions]),
    ]
}
