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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Onboards a thing for an owner (the caller, or a group the caller is a member of) and returns its thingID and a new access token. The first onboarding registers the thing and its password, which sticks: a later onboarding with the same vendorThingID must give it (INVALID_CREDENTIALS otherwise, without saying which part was wrong), returns the same thingID and adds the owner.",
            tags: ["thing"],
            params: [
                .init("vendorThingID", JSONSchema.string, required: true, "1-200 of [a-zA-Z0-9-_.]; unique, immutable"),
                .init("thingPassword", JSONSchema.string, required: true, "1-200 printable characters"),
                .thingOwner,
                .init("thingType", JSONSchema.string, "1-100 of [a-zA-Z0-9-_.]"),
                .init("firmwareVersion", JSONSchema.string, "1-100 of [a-zA-Z0-9-_.]"),
                .init("thingProperties", JSONSchema.object, "Custom fields (names starting with _ are dropped), at most 63 KB"),
            ],
            result: "onboarded",
            JSONSchema.object(required: ["thingID", "accessToken"], ["thingID": JSONSchema.string, "accessToken": JSONSchema.string]),
            errors: [
                ErrorReason.invalidInputData, ErrorReason.unauthorized, ErrorReason.invalidCredentials, ErrorReason.permissionDenied,
                ErrorReason.userNotFound, ErrorReason.groupNotFound, ErrorReason.thingDisabled,
            ],
            writes: true,
            example: .init(
                params: ["vendorThingID": "lamp-0042", "thingPassword": "s3cret", "owner": ContractExamples.owner, "thingType": "LED"],
                result: ["thingID": ContractExamples.thingID, "accessToken": "gt_q2Jv3LrNfYt0aZp9Wm1kQe7hXb5cUd8sGi4oRn6TlAy"]
            )
        )
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
        /// Whether the thing is disabled (`thing.disable`).
        public var disabled: Bool
        public init(
            thingID: String,
            vendorThingID: String,
            thingType: String?,
            firmwareVersion: String?,
            thingProperties: [String: JSONValue],
            created: Int64,
            modified: Int64,
            online: Bool,
            onlineStatusModifiedAt: Int64?,
            disabled: Bool = false
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
            self.disabled = disabled
        }
    }

    /// `thing.get`: a thing's record, for its owners, the thing itself and admins.
    public enum Get: RPCMethod {
        public typealias Params = ThingRef
        public typealias Result = ThingInfo
        public static let name = "thing.get"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary: "A thing's record, with whether a connection is bound to it now (online): for its owners, the thing itself and admins.",
            tags: ["thing"],
            params: [.thingID],
            result: "thing",
            thingSchema,
            errors: thingReadErrors,
            example: .init(params: ["thingID": ContractExamples.thingID], result: ContractExamples.thing)
        )
    }

    /// `thing.find`: a thing's record by its vendorThingID, for its owners, the thing itself and admins.
    public enum Find: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var vendorThingID: String
            public init(vendorThingID: String) { self.vendorThingID = vendorThingID }
        }
        public typealias Result = ThingInfo
        public static let name = "thing.find"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary: "A thing's record found by its vendorThingID (Kii's VENDOR_THING_ID:{id} lookup): for its owners, the thing itself and admins.",
            tags: ["thing"],
            params: [.init("vendorThingID", JSONSchema.string, required: true, "1-200 of [a-zA-Z0-9-_.]")],
            result: "thing",
            thingSchema,
            errors: thingReadErrors,
            example: .init(params: ["vendorThingID": "lamp-0042"], result: ContractExamples.thing)
        )
    }

    /// `thing.update`: changes a thing's type, firmware version and custom fields.
    public enum Update: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var thingType: String?
            public var firmwareVersion: String?
            /// Merged at the top level; a `null` value removes its field.
            public var thingProperties: [String: JSONValue]?
            public init(thingID: String, thingType: String? = nil, firmwareVersion: String? = nil, thingProperties: [String: JSONValue]? = nil) {
                self.thingID = thingID
                self.thingType = thingType
                self.firmwareVersion = firmwareVersion
                self.thingProperties = thingProperties
            }
        }
        public typealias Result = ThingInfo
        public static let name = "thing.update"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "Changes a thing's type, firmware version and custom fields (an owner, the thing itself or an admin) and returns the thing as it now is. thingProperties are merged at the top level, a null value removing its field. When anything changed, the owners and the thing get thingUpdated with the new values of what changed.",
            tags: ["thing"],
            params: [
                .thingID,
                .init("thingType", JSONSchema.string, "1-100 of [a-zA-Z0-9-_.]"),
                .init("firmwareVersion", JSONSchema.string, "1-100 of [a-zA-Z0-9-_.]"),
                .init(
                    "thingProperties",
                    JSONSchema.object,
                    "Custom fields to set (null removes one; names starting with _ are dropped); at most 63 KB in all after the merge"
                ),
            ],
            result: "thing",
            thingSchema,
            errors: thingReadErrors,
            writes: true,
            example: .init(params: ["thingID": ContractExamples.thingID, "firmwareVersion": "1.0.3"], result: ContractExamples.thing)
        )
    }

    /// `thing.disable`: an owner or admin disables a thing.
    public enum Disable: RPCMethod {
        public typealias Params = ThingRef
        public typealias Result = Bool
        public static let name = "thing.disable"

        public static let access: AccessRequirement = .session
        public static let contract = statusContract(
            "Disables a thing (an owner or an admin): its token no longer authenticates and onboarding it is refused (THING_DISABLED); connections bound to it are unbound at once, their subscriptions end with events.ended (THING_DISABLED), and it goes offline. Its data stays; owners still read it and send it commands, which wait until it is enabled and connects again. The owners and the thing get thingUpdated (disabled: true). Disabling a disabled thing changes nothing.",
            result: "disabled"
        )
    }

    /// `thing.enable`: an owner or admin enables a disabled thing again.
    public enum Enable: RPCMethod {
        public typealias Params = ThingRef
        public typealias Result = Bool
        public static let name = "thing.enable"

        public static let access: AccessRequirement = .session
        public static let contract = statusContract(
            "Enables a disabled thing again (an owner or an admin): its tokens authenticate again. The owners and the thing get thingUpdated (disabled: false). Enabling an enabled thing changes nothing.",
            result: "enabled"
        )
    }

    /// The contract of `thing.disable` and `thing.enable`, which differ only in what they say and name their result.
    static func statusContract(_ summary: String, result: String) -> MethodContract {
        MethodContract(
            summary: summary,
            tags: ["thing"],
            params: [.thingID],
            result: result,
            JSONSchema.boolean,
            errors: thingReadErrors,
            writes: true,
            example: .init(params: ["thingID": ContractExamples.thingID], result: true)
        )
    }

    /// `thing.delete`: removes a thing with its ownerships, commands, states, triggers and thing-scope data.
    public enum Delete: RPCMethod {
        public typealias Params = ThingRef
        public typealias Result = Bool
        public static let name = "thing.delete"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "Deletes a thing with its ownerships, tokens, commands, states, triggers and thing-scope buckets (an owner, the thing itself or an admin). Its owners get thingDeleted; connections bound to it are unbound.",
            tags: ["thing"],
            params: [.thingID],
            result: "deleted",
            JSONSchema.boolean,
            errors: thingReadErrors,
            writes: true,
            example: .init(params: ["thingID": ContractExamples.thingID], result: true)
        )
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

        public static let access: AccessRequirement = .admin
        public static let contract = MethodContract(
            summary: "Changes a thing's password (app admins only); later onboardings and ownership requests must give the new one.",
            tags: ["thing"],
            params: [.thingID, .init("thingPassword", JSONSchema.string, required: true, "1-200 printable characters")],
            result: "changed",
            JSONSchema.boolean,
            errors: [ErrorReason.invalidInputData, ErrorReason.permissionDenied, ErrorReason.thingNotFound],
            writes: true,
            example: .init(params: ["thingID": ContractExamples.thingID, "thingPassword": "n3w-s3cret"], result: true)
        )
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

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "Adds an owner: a user adds themself, a member adds their group; the thing itself and admins add anyone. With --require-thing-password-for-ownership, others must give the thing's password. Owners and the thing get thingOwnerAdded.",
            tags: ["thing"],
            params: [.thingID, .thingOwner, .init("thingPassword", JSONSchema.string, "The thing's password (required by the daemon option)")],
            result: "added",
            JSONSchema.boolean,
            errors: thingReadErrors + [
                ErrorReason.invalidCredentials, ErrorReason.userNotFound, ErrorReason.groupNotFound, ErrorReason.thingOwnershipAlreadyExists,
            ],
            writes: true,
            example: .init(params: ["thingID": ContractExamples.thingID, "owner": "group:kitchen"], result: true)
        )
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

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "Removes an owner: the user themself, a member of the owner group, the thing itself or an admin. The removed owner, the remaining owners and the thing get thingOwnerRemoved.",
            tags: ["thing"],
            params: [.thingID, .thingOwner],
            result: "removed",
            JSONSchema.boolean,
            errors: thingReadErrors + [ErrorReason.userNotFound, ErrorReason.groupNotFound, ErrorReason.thingOwnershipNotFound],
            writes: true,
            example: .init(params: ["thingID": ContractExamples.thingID, "owner": "group:kitchen"], result: true)
        )
    }

    /// `thing.owners`: the thing's owners as TypedID strings.
    public enum Owners: RPCMethod {
        public typealias Params = ThingRef
        public struct Result: Codable, Hashable, Sendable {
            public var owners: [String]
            public init(owners: [String]) { self.owners = owners }
        }
        public static let name = "thing.owners"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary: "The thing's owners as TypedIDs (user:ID, group:ID), in the order they were added.",
            tags: ["thing"],
            params: [.thingID],
            result: "owners",
            JSONSchema.object(required: ["owners"], ["owners": JSONSchema.array(of: JSONSchema.string)]),
            errors: thingReadErrors,
            example: .init(params: ["thingID": ContractExamples.thingID], result: ["owners": [ContractExamples.owner, "group:kitchen"]])
        )
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

        public static let access: AccessRequirement = .session
        public static var adminOnlyParameters: [String] { ["userID"] }
        public static let contract = MethodContract(
            summary:
                "The things a user owns, directly or through a group they are a member of at this moment (joining or leaving the group changes it at once). The caller's own, or anyone's for an admin.",
            tags: ["thing", "user"],
            params: [.init("userID", JSONSchema.string, "Whose; the caller when absent")],
            result: "things",
            JSONSchema.object(required: ["things"], ["things": JSONSchema.array(of: thingSchema)]),
            errors: [ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.userNotFound],
            example: .init(params: [:], result: ["things": [ContractExamples.thing]])
        )
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

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "Uploads the thing's state (the thing itself, an owner or an admin): a JSON object of at most 10 KB, kept as the latest and in the history. created says whether it was the first (Kii answers 201, then 204). Owners get thingStateChanged; enabled triggers whose condition turns true send their command, at most 10 a second per thing and while it has fewer than 1,000 commands pending; firings past those bounds send nothing and are recorded in one triggerSkipped event to the owners (triggerIDs, reason, limit).",
            tags: ["thing"],
            params: [
                .thingID, .init("state", JSONSchema.object, required: true, "A JSON object of at most 10,240 bytes"),
                .init("timestamp", JSONSchema.integer, "The thing's time for the state (ms); the daemon's clock when absent"),
            ],
            result: "stored",
            JSONSchema.object(required: ["created", "timestamp"], ["created": JSONSchema.boolean, "timestamp": JSONSchema.integer]),
            errors: thingReadErrors + [ErrorReason.stateTooLarge],
            writes: true,
            example: .init(
                params: ["thingID": ContractExamples.thingID, "state": ContractExamples.state],
                result: ["created": true, "timestamp": 1_795_348_760_000]
            )
        )
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

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary: "The thing's latest state and its time: for its owners, the thing itself and admins.",
            tags: ["thing"],
            params: [.thingID],
            result: "state",
            stateSchema,
            errors: thingReadErrors + [ErrorReason.stateNotFound],
            example: .init(params: ["thingID": ContractExamples.thingID], result: ["state": ContractExamples.state, "timestamp": 1_795_348_760_000])
        )
    }

    /// `thing.stateHistory`: earlier states in a time range, oldest first, paged; or (`grouped`) the range split
    /// into intervals, each with aggregations of its states (Thing-IF's grouped queries).
    public enum StateHistory: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var from: Int64?
            public var to: Int64?
            public var limit: Int?
            public var paginationKey: String?
            /// Thing-IF's grouped query: `from...to` split into intervals, answered in `groupedResults`.
            public var grouped: Bool?
            /// With `grouped`: each group's length in ms (default: the shortest of 1 min, 5 min, 15 min, 30 min,
            /// 1 h, 3 h, 6 h, 12 h, 1 day, 7 days, 30 days that makes at most 60 groups).
            public var interval: Int64?
            /// With `grouped`: what to compute per group; without any, each group holds its states.
            public var aggregations: [StateAggregationSpec]?
            public init(
                thingID: String,
                from: Int64? = nil,
                to: Int64? = nil,
                limit: Int? = nil,
                paginationKey: String? = nil,
                grouped: Bool? = nil,
                interval: Int64? = nil,
                aggregations: [StateAggregationSpec]? = nil
            ) {
                self.thingID = thingID
                self.from = from
                self.to = to
                self.limit = limit
                self.paginationKey = paginationKey
                self.grouped = grouped
                self.interval = interval
                self.aggregations = aggregations
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            /// The page's states; empty for a grouped query.
            public var results: [StateInfo]
            public var nextPaginationKey: String?
            /// A grouped query's groups, in time order.
            public var groupedResults: [StateGroup]?
            public init(results: [StateInfo], nextPaginationKey: String?, groupedResults: [StateGroup]? = nil) {
                self.results = results
                self.nextPaginationKey = nextPaginationKey
                self.groupedResults = groupedResults
            }
        }
        public static let name = "thing.stateHistory"

        public static let access: AccessRequirement = .principal
        public static var itemLimits: [String: Int] { ["aggregations": StateAggregationSpec.maximumCount] }
        public static let contract = MethodContract(
            summary:
                "The thing's states with from <= timestamp <= to, in upload order, at most limit (default and maximum 1,000) per page; nextPaginationKey continues. With grouped: true (Thing-IF's grouped query), from and to are required and split into groups of interval ms (default: the shortest of 1 min, 5 min, 15 min, 30 min, 1 h, 3 h, 6 h, 12 h, 1 day, 7 days, 30 days making at most 60 groups; at most 1,000 groups), the last ending at to; groupedResults holds each group's range {from, to} (both included) with its aggregations (COUNT of the states, or of those that have field; MAX, MIN, MEAN, SUM of a numeric top-level field; each with its value, null when the group has none, under putAggregationInto, default type_field in lower case), or without aggregations its states by timestamp (at most 1,000 in all). A thing that never uploaded a state has no history (STATE_HISTORY_NOT_AVAILABLE, as Kii answers).",
            tags: ["thing"],
            params: [
                .thingID, .init("from", JSONSchema.integer, "Earliest timestamp (ms)"), .init("to", JSONSchema.integer, "Latest timestamp (ms)"),
                .init("limit", JSONSchema.integer, "1-1000; not with grouped"),
                .init(
                    "paginationKey",
                    JSONSchema.string,
                    "From the previous page, with the same range by the same caller; valid until the daemon restarts; not with grouped"
                ),
                .init("grouped", JSONSchema.boolean, "Split from...to into groups (Thing-IF's grouped query)"),
                .init("interval", JSONSchema.integer, "With grouped: each group's length in ms"),
                .init(
                    "aggregations",
                    JSONSchema.array(of: stateAggregationSchema),
                    "With grouped: at most 10, each {type: COUNT|MAX|MIN|MEAN|SUM, field, putAggregationInto}"
                ),
            ],
            result: "page",
            JSONSchema.object(
                required: ["results"],
                [
                    "results": JSONSchema.array(of: stateSchema), "nextPaginationKey": JSONSchema.string,
                    "groupedResults": JSONSchema.array(of: stateGroupSchema),
                ]
            ),
            errors: thingReadErrors + [ErrorReason.stateHistoryNotAvailable],
            example: .init(
                params: ["thingID": ContractExamples.thingID, "limit": 2],
                result: [
                    "results": [["state": ContractExamples.state, "timestamp": 1_795_348_760_000]]
                ]
            )
        )
    }
}

extension MethodContract.Param {
    /// `thingID`.
    static let thingID = MethodContract.Param("thingID", JSONSchema.string, required: true, "th. and 32 hex digits, as thing.onboard returned")
    /// `owner`, a TypedID.
    static let thingOwner = MethodContract.Param("owner", JSONSchema.string, required: true, "user:ID or group:ID")
}

extension ContractExamples {
    static let thingID: JSONValue = "th.8a1f2c3d4e5f60718293a4b5c6d7e8f9"
    static let owner: JSONValue = "user:4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"
    /// A thing's record.
    static let thing: JSONValue = [
        "thingID": thingID, "vendorThingID": "lamp-0042", "thingType": "LED", "firmwareVersion": "1.0.3",
        "thingProperties": ["room": "kitchen"], "created": 1_795_348_702_624, "modified": 1_795_348_702_624, "online": true,
        "onlineStatusModifiedAt": 1_795_348_760_000, "disabled": false,
    ]
    /// A state.
    static let state: JSONValue = ["power": true, "brightness": 80]
}

/// The schema of a thing's record.
let thingSchema = JSONSchema.object(
    required: ["thingID", "vendorThingID", "thingProperties", "created", "modified", "online", "disabled"],
    [
        "thingID": JSONSchema.string, "vendorThingID": JSONSchema.string, "thingType": JSONSchema.string,
        "firmwareVersion": JSONSchema.string, "thingProperties": JSONSchema.object, "created": JSONSchema.integer,
        "modified": JSONSchema.integer, "online": JSONSchema.boolean, "onlineStatusModifiedAt": JSONSchema.integer,
        "disabled": JSONSchema.boolean,
    ]
)

/// The schema of a state with its time.
let stateSchema = JSONSchema.object(required: ["state", "timestamp"], ["state": JSONSchema.object, "timestamp": JSONSchema.integer])

/// The errors of a call on one thing that owners, the thing and admins may make.
let thingReadErrors = [
    ErrorReason.invalidInputData, ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.thingNotFound,
]

extension ThingMethods {
    /// The things area's methods (things, owners, states, commands, installations, triggers), in the published
    /// contract. A new method of the area is added here.
    public static let all: [any RPCMethod.Type] = [
        ThingMethods.Onboard.self,
        ThingMethods.Get.self,
        ThingMethods.Find.self,
        ThingMethods.Update.self,
        ThingMethods.Disable.self,
        ThingMethods.Enable.self,
        ThingMethods.Delete.self,
        ThingMethods.SetPassword.self,
        ThingMethods.AddOwner.self,
        ThingMethods.RemoveOwner.self,
        ThingMethods.Owners.self,
        ThingMethods.OwnedThings.self,
        ThingMethods.PutState.self,
        ThingMethods.GetState.self,
        ThingMethods.StateHistory.self,
        CommandMethods.Send.self,
        CommandMethods.Get.self,
        CommandMethods.List.self,
        CommandMethods.PutResults.self,
        InstallationMethods.Register.self,
        InstallationMethods.List.self,
        InstallationMethods.Delete.self,
        TriggerMethods.Create.self,
        TriggerMethods.Patch.self,
        TriggerMethods.Get.self,
        TriggerMethods.Results.self,
        TriggerMethods.List.self,
        TriggerMethods.Enable.self,
        TriggerMethods.Disable.self,
        TriggerMethods.Delete.self,
    ]
}
