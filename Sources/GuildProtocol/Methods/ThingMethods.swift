import GuildJSON

/// `thing.*` and `user.ownedThings`: Kii Thing-IF's things, their owners and their states (protocol/things.md).
public enum ThingMethods: Sendable {
    /// `thing.onboard`: registers a thing (or onboards a known one again with its password) for an owner, and
    /// returns its id and a new access token for it.
    public enum Onboard: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var vendorThingID: String
            public var thingPassword: String
            /// `user:ID` or `group:ID`.
            public var owner: String
            public var thingType: String?
            public var firmwareVersion: String?
            public var thingProperties: [String: JSONValue]?
            public init(
                vendorThingID: String,
                thingPassword: String,
                owner: String,
                thingType: String? = nil,
                firmwareVersion: String? = nil,
                thingProperties: [String: JSONValue]? = nil
            ) {
                self.vendorThingID = vendorThingID
                self.thingPassword = thingPassword
                self.owner = owner
                self.thingType = thingType
                self.firmwareVersion = firmwareVersion
                self.thingProperties = thingProperties
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var thingID: String
            public var accessToken: String
            public init(thingID: String, accessToken: String) {
                self.thingID = thingID
                self.accessToken = accessToken
            }
        }
        public static let name = "thing.onboard"
    }

    /// Params naming one thing.
    public struct ThingRef: Codable, Hashable, Sendable {
        public var thingID: String
        public init(thingID: String) { self.thingID = thingID }
    }

    /// A thing as `thing.get` and `user.ownedThings` show it (Kii's `_`-less field names).
    public struct ThingInfo: Codable, Hashable, Sendable {
        public var thingID: String
        public var vendorThingID: String
        public var thingType: String?
        public var firmwareVersion: String?
        public var thingProperties: [String: JSONValue]
        public var created: Int64
        public var modified: Int64
        /// Whether a connection is bound to the thing now.
        public var online: Bool
        /// When `online` last changed (ms), nil before the thing first connected.
        public var onlineStatusModifiedAt: Int64?
        public init(
            thingID: String,
            vendorThingID: String,
            thingType: String?,
            firmwareVersion: String?,
            thingProperties: [String: JSONValue],
            created: Int64,
            modified: Int64,
            online: Bool,
            onlineStatusModifiedAt: Int64?
        ) {
            self.thingID = thingID
            self.vendorThingID = vendorThingID
            self.thingType = thingType
            self.firmwareVersion = firmwareVersion
            self.thingProperties = thingProperties
            self.created = created
            self.modified = modified
            self.online = online
            self.onlineStatusModifiedAt = onlineStatusModifiedAt
        }
    }

    /// `thing.get`: a thing's record, for its owners, the thing itself and admins.
    public enum Get: RPCMethod {
        public typealias Params = ThingRef
        public typealias Result = ThingInfo
        public static let name = "thing.get"
    }

    /// `thing.delete`: removes a thing with its ownerships, commands, states, triggers and thing-scope data.
    public enum Delete: RPCMethod {
        public typealias Params = ThingRef
        public typealias Result = Bool
        public static let name = "thing.delete"
    }

    /// `thing.setPassword`: an app admin changes a thing's password.
    public enum SetPassword: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var thingPassword: String
            public init(thingID: String, thingPassword: String) {
                self.thingID = thingID
                self.thingPassword = thingPassword
            }
        }
        public typealias Result = Bool
        public static let name = "thing.setPassword"
    }

    /// `thing.addOwner` and `thing.removeOwner`.
    public struct OwnerParams: Codable, Hashable, Sendable {
        public var thingID: String
        /// `user:ID` or `group:ID`.
        public var owner: String
        public var thingPassword: String?
        public init(thingID: String, owner: String, thingPassword: String? = nil) {
            self.thingID = thingID
            self.owner = owner
            self.thingPassword = thingPassword
        }
    }

    /// `thing.addOwner`: a user adds themself, a member adds their group (an owner or admin adds anyone).
    public enum AddOwner: RPCMethod {
        public typealias Params = OwnerParams
        public typealias Result = Bool
        public static let name = "thing.addOwner"
    }

    /// `thing.removeOwner`.
    public enum RemoveOwner: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var owner: String
            public init(thingID: String, owner: String) {
                self.thingID = thingID
                self.owner = owner
            }
        }
        public typealias Result = Bool
        public static let name = "thing.removeOwner"
    }

    /// `thing.owners`: the thing's owners as TypedID strings.
    public enum Owners: RPCMethod {
        public typealias Params = ThingRef
        public struct Result: Codable, Hashable, Sendable {
            public var owners: [String]
            public init(owners: [String]) { self.owners = owners }
        }
        public static let name = "thing.owners"
    }

    /// `user.ownedThings`: the things a user owns, directly or through a group they are a member of now.
    public enum OwnedThings: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var userID: String?
            public init(userID: String? = nil) { self.userID = userID }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var things: [ThingInfo]
            public init(things: [ThingInfo]) { self.things = things }
        }
        public static let name = "user.ownedThings"
    }

    /// `thing.putState`: uploads the thing's state.
    public enum PutState: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var state: [String: JSONValue]
            /// The thing's own time for the state (ms); the daemon's clock when absent.
            public var timestamp: Int64?
            public init(thingID: String, state: [String: JSONValue], timestamp: Int64? = nil) {
                self.thingID = thingID
                self.state = state
                self.timestamp = timestamp
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            /// True for the thing's first state (Kii answers 201 then, 204 afterwards).
            public var created: Bool
            public var timestamp: Int64
            public init(created: Bool, timestamp: Int64) {
                self.created = created
                self.timestamp = timestamp
            }
        }
        public static let name = "thing.putState"
    }

    /// A state as it was uploaded.
    public struct StateInfo: Codable, Hashable, Sendable {
        public var state: [String: JSONValue]
        public var timestamp: Int64
        public init(state: [String: JSONValue], timestamp: Int64) {
            self.state = state
            self.timestamp = timestamp
        }
    }

    /// `thing.getState`: the latest state.
    public enum GetState: RPCMethod {
        public typealias Params = ThingRef
        public typealias Result = StateInfo
        public static let name = "thing.getState"
    }

    /// `thing.stateHistory`: earlier states in a time range, oldest first, paged.
    public enum StateHistory: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var from: Int64?
            public var to: Int64?
            public var limit: Int?
            public var paginationKey: String?
            public init(thingID: String, from: Int64? = nil, to: Int64? = nil, limit: Int? = nil, paginationKey: String? = nil) {
                self.thingID = thingID
                self.from = from
                self.to = to
                self.limit = limit
                self.paginationKey = paginationKey
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var results: [StateInfo]
            public var nextPaginationKey: String?
            public init(results: [StateInfo], nextPaginationKey: String?) {
                self.results = results
                self.nextPaginationKey = nextPaginationKey
            }
        }
        public static let name = "thing.stateHistory"
    }
}
