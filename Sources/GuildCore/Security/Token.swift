import Crypto
import Foundation

/// A bearer token: 256 random bits, shown to the client once as `gt_` and base64url text, and stored only as
/// its SHA-256. The prefix makes tokens easy to recognise (in logs a secret scanner reads, say) and keeps them
/// from starting with `-`, which command lines would take for an option.
public struct Token: Sendable, Hashable {
    /// What every minted token starts with.
    public static let prefix = "gt_"

    /// The text the client holds.
    public let text: String
    /// What the store keeps: SHA-256 of the text.
    public let hash: [UInt8]

    /// Mints a new random token.
    public static func generate() -> Token {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in bytes.indices { bytes[index] = generator.next() }
        return Token(text: Self.prefix + Base64URL.encode(bytes))
    }

    /// Wraps token text received from a client.
    public init(text: String) {
        self.text = text
        self.hash = Self.hash(of: text)
    }

    /// SHA-256 of token text.
    public static func hash(of text: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(text.utf8)))
    }
}

/// A newly issued session: an access token, maybe a refresh token, and when the access token expires.
public struct IssuedSession: Sendable, Hashable {
    /// The access token.
    public var accessToken: Token
    /// The refresh token (none for pseudo users).
    public var refreshToken: Token?
    /// When the access token expires (ms since the epoch); `nil` for never.
    public var expiresAt: Int64?
    /// An id shared by the tokens of this session, so they are revoked together.
    public var family: String

    /// Creates a session.
    public init(accessToken: Token, refreshToken: Token?, expiresAt: Int64?, family: String) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.family = family
    }
}

/// A session an access token resolved to.
public struct ResolvedSession: Sendable, Hashable {
    /// The user; for a thing's session, the thing (its id, and its vendorThingID as `username`).
    public var user: User
    /// The access token's hash.
    public var tokenHash: [UInt8]
    /// When the token expires (ms since the epoch), `nil` for never.
    public var expiresAt: Int64?

    /// Whether the token is a thing's (issued by `thing.onboard`): the connection acts as the thing, a
    /// principal that is not a user (see ``Caller/thingID``).
    public var isThing: Bool

    /// Creates a resolved session.
    public init(user: User, tokenHash: [UInt8], expiresAt: Int64?, isThing: Bool = false) {
        self.user = user
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
        self.isThing = isThing
    }
}
