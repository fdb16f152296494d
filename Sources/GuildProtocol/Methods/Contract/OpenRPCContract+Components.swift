import GuildJSON

/// The component schemas of `protocol/openrpc.json`, named by the methods' `$ref`s.
extension OpenRPCContract {
    /// The component schemas, in document order.
    public static let componentSchemas: KeyValuePairs<String, JSONValue> = [
        "UserProfile": JSONSchema.object(
            required: ["userID", "isPseudo", "createdAt"],
            [
                "userID": JSONSchema.string,
                "username": JSONSchema.string,
                "email": JSONSchema.string,
                "phone": JSONSchema.string,
                "displayName": JSONSchema.string,
                "fields": JSONSchema.object,
                "isPseudo": JSONSchema.boolean,
                "createdAt": ["type": "integer", "description": "ms since the Unix epoch"],
                "modifiedAt": JSONSchema.integer,
            ]
        ),
        "AuthResult": JSONSchema.object(
            required: ["user", "accessToken"],
            [
                "user": JSONSchema.ref("UserProfile"),
                "accessToken": JSONSchema.string,
                "refreshToken": JSONSchema.string,
                "expiresAt": JSONSchema.integer,
            ]
        ),
        "SessionInfo": JSONSchema.object(
            required: ["admin", "peer"],
            [
                "user": JSONSchema.ref("UserProfile"),
                "thingID": JSONSchema.string,
                "vendorThingID": JSONSchema.string,
                "expiresAt": JSONSchema.integer,
                "admin": JSONSchema.boolean,
                "peer": JSONSchema.object(
                    required: ["uid", "gid", "pid"],
                    ["uid": JSONSchema.integer, "gid": JSONSchema.integer, "pid": JSONSchema.integer]
                ),
            ]
        ),
        "SystemStatus": JSONSchema.object(
            required: ["version", "uptimeSeconds", "activation", "connections", "databasePath", "pid"],
            [
                "version": JSONSchema.string,
                "uptimeSeconds": JSONSchema.number,
                "activation": JSONSchema.oneOf(["socket-activated", "bound"]),
                "connections": JSONSchema.integer,
                "databasePath": JSONSchema.string,
                "pid": JSONSchema.integer,
                "writes": [
                    "type": "object",
                    "description": "Group commit since start: transactions committed (one fsync each) and the write operations they held",
                    "required": ["commits", "operations"],
                    "properties": ["commits": JSONSchema.integer, "operations": JSONSchema.integer],
                ],
                "database": [
                    "type": "object",
                    "description":
                        "The engine (sqlite or postgresql) and its health: whether the write connection is open; for PostgreSQL, the last event of any host read from the shared log, how often its follower connected and the read pool (its size, the connections open, the reads holding one); for SQLite, the write connection's synchronous mode as read back from it (FULL: every commit fsynced) and the bytes SQLite holds on guildd's heap",
                    "required": ["engine", "connected"],
                    "properties": [
                        "engine": JSONSchema.oneOf(["sqlite", "postgresql"]),
                        "connected": JSONSchema.boolean,
                        "eventCursor": JSONSchema.integer,
                        "followerConnects": JSONSchema.integer,
                        "synchronous": JSONSchema.oneOf(["OFF", "NORMAL", "FULL", "EXTRA", "unknown"]),
                        "heapBytes": JSONSchema.integer,
                        "readPool": JSONSchema.object(
                            required: ["size", "open", "reading"],
                            ["size": JSONSchema.integer, "open": JSONSchema.integer, "reading": JSONSchema.integer]
                        ),
                    ],
                ],
            ]
        ),
        "GroupInfo": JSONSchema.object(
            required: ["groupID", "name", "type", "owner", "memberCount", "createdAt", "modifiedAt"],
            [
                "groupID": JSONSchema.string,
                "name": JSONSchema.string,
                "type": JSONSchema.string,
                "owner": JSONSchema.nullableString,
                "memberCount": JSONSchema.integer,
                "createdAt": JSONSchema.integer,
                "modifiedAt": JSONSchema.integer,
            ]
        ),
        "GroupMember": JSONSchema.object(
            required: ["userID", "role", "joinedAt"],
            [
                "userID": JSONSchema.string,
                "role": JSONSchema.oneOf(["owner", "admin", "member"]),
                "joinedAt": JSONSchema.integer,
            ]
        ),
        "MemberResult": JSONSchema.object(
            required: ["userID", "result"],
            [
                "userID": JSONSchema.string,
                "result": JSONSchema.oneOf(["SUCC", "INVALID", "PENDING", "FAIL", "OVERLIMIT"]),
                "reason": JSONSchema.string,
            ]
        ),
        "GroupProfile": JSONSchema.object(
            required: [
                "groupID", "name", "type", "owner", "memberCount", "memberLimit", "introduction", "notification", "faceURL", "addOpt", "allMuted",
                "custom", "createdAt", "modifiedAt",
            ],
            [
                "groupID": JSONSchema.string,
                "name": JSONSchema.string,
                "type": JSONSchema.string,
                "owner": JSONSchema.nullableString,
                "memberCount": JSONSchema.integer,
                "memberLimit": JSONSchema.nullableInteger,
                "introduction": JSONSchema.string,
                "notification": JSONSchema.string,
                "faceURL": JSONSchema.string,
                "addOpt": JSONSchema.oneOf(["FORBID", "AUTH", "ANY"]),
                "allMuted": JSONSchema.boolean,
                "custom": JSONSchema.stringMap,
                "createdAt": JSONSchema.integer,
                "modifiedAt": JSONSchema.integer,
            ]
        ),
        "GroupMemberDetail": JSONSchema.object(
            required: ["userID", "role", "joinedAt", "nameCard", "muteUntil", "receiveOption", "custom"],
            [
                "userID": JSONSchema.string,
                "role": JSONSchema.oneOf(["owner", "admin", "member"]),
                "joinedAt": JSONSchema.integer,
                "nameCard": JSONSchema.string,
                "nickName": JSONSchema.string,
                "muteUntil": JSONSchema.integer,
                "receiveOption": JSONSchema.oneOf(["RECEIVE", "NOT_RECEIVE", "RECEIVE_NOT_NOTIFY"]),
                "custom": JSONSchema.stringMap,
            ]
        ),
        "GroupApplication": JSONSchema.object(
            required: ["applicationID", "groupID", "fromUser", "type", "requestMsg", "status", "handledMsg", "createdAt"],
            [
                "applicationID": JSONSchema.integer,
                "groupID": JSONSchema.string,
                "fromUser": JSONSchema.string,
                "type": JSONSchema.oneOf(["JOIN"]),
                "requestMsg": JSONSchema.string,
                "status": JSONSchema.oneOf(["PENDING", "ACCEPTED", "REFUSED"]),
                "handledBy": JSONSchema.nullableString,
                "handledMsg": JSONSchema.string,
                "createdAt": JSONSchema.integer,
                "handledAt": JSONSchema.nullableInteger,
            ]
        ),
        "GroupTypeRules": [
            "type": "object",
            "description": "Who-may fields list standings: owner, admin, member, nonMember, appAdmin (a peer with admin rights)",
            "properties": [
                "roles": JSONSchema.array(of: JSONSchema.string),
                "invite": JSONSchema.array(of: JSONSchema.string),
                "editProfile": JSONSchema.array(of: JSONSchema.string),
                "kick": JSONSchema.array(of: JSONSchema.string),
                "mute": JSONSchema.array(of: JSONSchema.string),
                "dismiss": JSONSchema.array(of: JSONSchema.string),
                "transferOwner": JSONSchema.array(of: JSONSchema.string),
                "setMemberRole": JSONSchema.array(of: JSONSchema.string),
                "handleApplications": JSONSchema.array(of: JSONSchema.string),
                "readMembers": JSONSchema.array(of: JSONSchema.string),
                "type": JSONSchema.string,
                "kiiRules": JSONSchema.boolean,
                "join": JSONSchema.oneOf(["addedOnly", "byAddOpt"]),
                "defaultAddOpt": JSONSchema.oneOf(["FORBID", "AUTH", "ANY"]),
                "memberLimit": JSONSchema.nullableInteger,
                "ownerMayQuit": JSONSchema.boolean,
                "unreadCounts": JSONSchema.boolean,
                "preJoinHistory": JSONSchema.boolean,
                "memberEvents": JSONSchema.boolean,
                "roleEvents": JSONSchema.boolean,
                "muteEvents": JSONSchema.boolean,
                "quitEvent": JSONSchema.boolean,
                "inJoinedList": JSONSchema.boolean,
                "attributes": JSONSchema.boolean,
            ],
        ],
        "Error": JSONSchema.object(
            required: ["code", "message", "data"],
            [
                "code": JSONSchema.integer,
                "message": JSONSchema.string,
                "data": JSONSchema.object(required: ["reason"], ["reason": JSONSchema.string, "field": JSONSchema.string]),
            ]
        ),
    ]

    /// The notifications the daemon sends (`x-notifications`).
    public static let notifications: JSONValue = [
        [
            "name": "events.event",
            "summary": "One event of a subscription, in seq order.",
            "params": [
                ["name": "subscription", "schema": JSONSchema.string], ["name": "seq", "schema": JSONSchema.integer],
                ["name": "event", "schema": JSONSchema.ref("Event")],
            ],
        ],
        [
            "name": "events.ended",
            "summary":
                "The subscription is over: reason LAGGED when the subscriber fell more than the queue limit behind (resubscribe with since: lastSeq to lose nothing), THING_DISABLED when the subscriber is a thing that was disabled (its connection is unbound; after thing.enable it authenticates and resubscribes with since: lastSeq).",
            "params": [
                ["name": "subscription", "schema": JSONSchema.string],
                ["name": "reason", "schema": JSONSchema.oneOf([SubscriptionEnded.lagged, SubscriptionEnded.thingDisabled])],
                ["name": "lastSeq", "schema": JSONSchema.integer],
            ],
        ],
    ]
}
