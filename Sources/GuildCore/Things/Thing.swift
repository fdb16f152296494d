import GuildJSON

/// A thing (Kii Thing-IF): a device with a vendor-given id and a password, owned by users and groups, that
/// connects with its own token, receives commands and uploads states.
public struct Thing: Sendable, Hashable {
    /// Guild's id, `th.` and 32 hex digits.
    public var thingID: String
    /// The vendor's id: unique, immutable.
    public var vendorThingID: String
    /// The password's hash (the password set at first onboarding sticks).
    public var passwordHash: String
    public var thingType: String?
    public var firmwareVersion: String?
    /// Custom fields (names starting with `_` are dropped).
    public var properties: [String: JSONValue]
    public var created: Int64
    public var modified: Int64
    /// Whether a connection is bound to the thing.
    public var online: Bool
    /// When `online` last changed.
    public var onlineModified: Int64?
    /// Whether the thing has uploaded a state.
    public var hasState: Bool
    /// Whether an owner or admin disabled the thing (`thing.disable`): its token authenticates nothing and
    /// onboarding it is refused until `thing.enable`; owners still read it and send it commands, which wait.
    public var disabled: Bool

    /// Creates a thing.
    public init(
        thingID: String,
        vendorThingID: String,
        passwordHash: String,
        thingType: String? = nil,
        firmwareVersion: String? = nil,
        properties: [String: JSONValue] = [:],
        created: Int64,
        modified: Int64,
        online: Bool = false,
        onlineModified: Int64? = nil,
        hasState: Bool = false,
        disabled: Bool = false
    ) {
        self.thingID = thingID
        self.vendorThingID = vendorThingID
        self.passwordHash = passwordHash
        self.thingType = thingType
        self.firmwareVersion = firmwareVersion
        self.properties = properties
        self.created = created
        self.modified = modified
        self.online = online
        self.onlineModified = onlineModified
        self.hasState = hasState
        self.disabled = disabled
    }
}

/// A thing's owner, a TypedID on the wire: `user:ID` (a user or pseudo user) or `group:ID` (every member of
/// the group at the moment of each check).
public enum ThingOwner: Hashable, Sendable, CustomStringConvertible {
    case user(String)
    case group(String)

    /// Parses a TypedID (`user:ID` or `group:ID`); `invalidInput` otherwise.
    public init(typedID text: String, field: String) throws(GuildError) {
        guard let colon = text.firstIndex(of: ":") else {
            throw .invalidInput("an owner is user:ID or group:ID", field: field)
        }
        let id = String(text[text.index(after: colon)...])
        guard !id.isEmpty, id.utf8.count <= 128, !id.utf8.contains(where: { $0 < 0x20 }) else {
            throw .invalidInput("an owner's id is 1-128 bytes without control characters", field: field)
        }
        switch text[..<colon] {
        case "user": self = .user(id)
        case "group": self = .group(id)
        default: throw .invalidInput("an owner is user:ID or group:ID", field: field)
        }
    }

    /// `user` or `group`, as stored.
    public var kind: String {
        switch self {
        case .user: "user"
        case .group: "group"
        }
    }

    /// The user's or group's id.
    public var id: String {
        switch self {
        case .user(let id), .group(let id): id
        }
    }

    /// The TypedID.
    public var description: String { self.kind + ":" + self.id }
}
