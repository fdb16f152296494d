/// A domain failure: what went wrong, in terms a client can act on.
///
/// Codes are a closed set (a private enum behind static members, as in swift-nio and
/// swift-service-lifecycle); the server maps each to a stable JSON-RPC code and `data.reason`.
/// Two errors are equal when their codes are.
public struct GuildError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case invalidInput
            case unauthorized
            case invalidCredentials
            case invalidToken
            case invalidRefreshToken
            case permissionDenied
            case userNotFound
            case userAlreadyExists
            case identityAlreadySet
            case groupNotFound
            case groupAlreadyExists
            case unsupported
            case cursorExpired
            case subscriptionNotFound
            case tooManySubscriptions
            case imInvalidParameters
            case notAllowed
            case notAMember
            case ownerCannotQuit
            case groupDismissed
            case alreadyMember
            case groupFull
            case invalidGroupID
            case muted
            case groupIDInUse
            case alreadyProcessed
            case attributeRateLimited
            case attributeConflict
            case storageFull
        }

        fileprivate let base: Base

        /// A value failed a domain rule (`field` says which).
        public static let invalidInput = Code(base: .invalidInput)
        /// No session is bound and the call needs one.
        public static let unauthorized = Code(base: .unauthorized)
        /// The login name or password is wrong.
        public static let invalidCredentials = Code(base: .invalidCredentials)
        /// The access token is unknown, revoked or expired.
        public static let invalidToken = Code(base: .invalidToken)
        /// The refresh token is unknown, already used or revoked.
        public static let invalidRefreshToken = Code(base: .invalidRefreshToken)
        /// The caller may not do this.
        public static let permissionDenied = Code(base: .permissionDenied)
        /// No such user.
        public static let userNotFound = Code(base: .userNotFound)
        /// A login name, email address or phone number is taken.
        public static let userAlreadyExists = Code(base: .userAlreadyExists)
        /// The user already has a login identity.
        public static let identityAlreadySet = Code(base: .identityAlreadySet)
        /// No such group.
        public static let groupNotFound = Code(base: .groupNotFound)
        /// The group id is taken.
        public static let groupAlreadyExists = Code(base: .groupAlreadyExists)
        /// The group's type does not support the operation (Tencent's 10007).
        public static let unsupported = Code(base: .unsupported)
        /// A subscription's `since` is older than the events kept.
        public static let cursorExpired = Code(base: .cursorExpired)
        /// No such subscription on this connection.
        public static let subscriptionNotFound = Code(base: .subscriptionNotFound)
        /// The connection has as many subscriptions as it may.
        public static let tooManySubscriptions = Code(base: .tooManySubscriptions)

        /// An IM group rule's parameter limit (Tencent's 10004): byte limits, invitee counts, attributes.
        public static let imInvalidParameters = Code(base: .imInvalidParameters)
        /// The caller's role in an IM group does not allow this (Tencent's 10007).
        public static let notAllowed = Code(base: .notAllowed)
        /// The caller (or the user named) is not a member of the IM group (Tencent's 10007).
        public static let notAMember = Code(base: .notAMember)
        /// The owner may not quit this type of group (Tencent's 10009).
        public static let ownerCannotQuit = Code(base: .ownerCannotQuit)
        /// The group was dismissed (Tencent's 10010).
        public static let groupDismissed = Code(base: .groupDismissed)
        /// Already a member (Tencent's 10013).
        public static let alreadyMember = Code(base: .alreadyMember)
        /// The group is full (Tencent's 10014).
        public static let groupFull = Code(base: .groupFull)
        /// The IM group id breaks the id rules (Tencent's 10015).
        public static let invalidGroupID = Code(base: .invalidGroupID)
        /// The sender is muted (Tencent's 10017).
        public static let muted = Code(base: .muted)
        /// The IM group id is taken (Tencent's 10021).
        public static let groupIDInUse = Code(base: .groupIDInUse)
        /// The application was already handled (Tencent's 10024).
        public static let alreadyProcessed = Code(base: .alreadyProcessed)
        /// Too many attribute writes (Tencent's 10049).
        public static let attributeRateLimited = Code(base: .attributeRateLimited)
        /// A stale attribute write (Tencent's 10056).
        public static let attributeConflict = Code(base: .attributeConflict)
        /// The database's file system is full: nothing was written.
        public static let storageFull = Code(base: .storageFull)

        public var description: String { self.base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence for humans; never contains secrets.
    public var message: String
    /// The input field at fault, when there is one.
    public var field: String?
    /// Where the error was raised.
    public var location: String
    /// Extra members for the error's `data` (e.g. `oldestSeq` for `cursorExpired`).
    public var details: [String: Int64] = [:]

    /// Creates an error.
    public init(_ code: Code, _ message: String, field: String? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.field = field
        self.location = "\(file):\(line)"
    }

    public static func == (lhs: GuildError, rhs: GuildError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    public var description: String {
        "\(self.code): \(self.message)" + (self.field.map { " [\($0)]" } ?? "")
    }
}

extension GuildError {
    /// A value failed a domain rule.
    public static func invalidInput(
        _ message: String,
        field: String,
        file: String = #fileID,
        line: Int = #line
    )
        -> GuildError
    {
        GuildError(.invalidInput, message, field: field, file: file, line: line)
    }
}
