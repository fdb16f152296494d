import GuildJSON

/// Example values shared by the methods' examples in `protocol/openrpc.json`.
public enum ContractExamples: Sendable {
    /// A user's profile.
    public static let profile: JSONValue = [
        "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00",
        "username": "alice",
        "displayName": "Alice",
        "fields": [:],
        "isPseudo": false,
        "createdAt": 1_795_348_702_624,
        "modifiedAt": 1_795_348_702_624,
    ]

    /// A Basic group.
    public static let group: JSONValue = [
        "groupID": "sales-div",
        "name": "Sales Div.",
        "type": "Basic",
        "owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00",
        "memberCount": 2,
        "createdAt": 1_795_348_702_624,
        "modifiedAt": 1_795_348_702_624,
    ]

    /// An IM group member.
    public static let member: JSONValue = [
        "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00",
        "role": "owner",
        "joinedAt": 1_795_348_702_624,
        "nameCard": "",
        "nickName": "Alice",
        "muteUntil": 0,
        "receiveOption": "RECEIVE",
        "custom": [:],
    ]

    /// A connection's session (`session.whoami`).
    public static let session: JSONValue = [
        "user": profile,
        "expiresAt": 3_942_832_349_624,
        "admin": false,
        "peer": ["uid": 1000, "gid": 1000, "pid": 4242],
    ]

    /// A new session (`user.register`, `user.login`, ...).
    public static let auth: JSONValue = [
        "user": profile,
        "accessToken": "gt_DD0RbSbC2h_pLGHoDO0SJxX-30z02i7FmgKFwHRpUco",
        "refreshToken": "gt_q3N1b2X0m3pF7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2",
        "expiresAt": 3_942_832_349_624,
    ]

    /// An IM group's profile.
    public static let groupProfile: JSONValue = [
        "groupID": "@TGS#2C5SZEAEF",
        "name": "Book club",
        "type": "Public",
        "owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00",
        "memberCount": 2,
        "createdAt": 1_795_348_702_624,
        "modifiedAt": 1_795_348_702_624,
        "memberLimit": 2000,
        "introduction": "",
        "notification": "",
        "faceURL": "",
        "addOpt": "AUTH",
        "allMuted": false,
        "custom": [:],
    ]
}
