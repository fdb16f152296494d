import GuildJSON

extension GroupMethods.AcceptApplication {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract.applicationHandling(
        summary:
            "Accepts a pending join application (owner and admins). The applicant joins (members get memberEnter); the applicant alone gets applicationProcessed. Handling an application twice gives 10024."
    )
}

extension GroupMethods.Applications {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "A page of at most 50 join applications to a group, newest first, pending and handled, with unreadCount (pending). Owner and admins (group.types handleApplications). Pass nextSeq back until it is 0.",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("nextSeq", JSONSchema.integer),
        ],
        result: "applications",
        JSONSchema.object(
            required: ["applications", "unreadCount", "nextSeq"],
            [
                "applications": JSONSchema.array(of: JSONSchema.ref("GroupApplication")),
                "unreadCount": JSONSchema.integer,
                "nextSeq": JSONSchema.integer,
            ]
        ),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAllowed, ErrorReason.notAMember,
            ErrorReason.unsupportedForType,
        ],
        example: .init(
            params: ["groupID": "@TGS#2C5SZEAEF"],
            result: [
                "applications": [
                    [
                        "applicationID": 7,
                        "groupID": "@TGS#2C5SZEAEF",
                        "fromUser": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02",
                        "type": "JOIN",
                        "requestMsg": "Hi!",
                        "status": "PENDING",
                        "handledBy": nil,
                        "handledMsg": "",
                        "createdAt": 1_795_348_702_624,
                        "handledAt": nil,
                    ]
                ],
                "unreadCount": 1,
                "nextSeq": 0,
            ]
        )
    )
}

extension GroupMethods.DeleteAttributes {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "Removes attributes by key; keys null or absent removes all (members only).",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("keys", ["type": ["array", "null"], "items": JSONSchema.string]),
            .init("version", JSONSchema.integer, "The version this write is based on: if another write came first, 10056"),
        ],
        result: "attributes",
        JSONSchema.object(required: ["attributes", "version"], ["attributes": JSONSchema.stringMap, "version": JSONSchema.integer]),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.unsupportedForType,
            ErrorReason.attributeConflict, ErrorReason.attributeRateLimited,
        ],
        writes: true,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "keys": ["mic1"]], result: ["attributes": [:], "version": 4])
    )
}

extension GroupMethods.Dismiss {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Dismisses a group (owner; Work groups: app admins only). Members get groupDismissed; the id answers 10010 from then on (IM types; a Basic group is simply deleted).",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true)
        ],
        result: "dismissed",
        JSONSchema.boolean,
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAllowed, ErrorReason.notAMember,
            ErrorReason.unsupportedForType, ErrorReason.permissionDenied,
        ],
        writes: true,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF"], result: true)
    )
}

extension GroupMethods.GetAttributes {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "A group's attributes (all, or the keys named) and their version (members only).",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("keys", JSONSchema.array(of: JSONSchema.string)),
        ],
        result: "attributes",
        JSONSchema.object(required: ["attributes", "version"], ["attributes": JSONSchema.stringMap, "version": JSONSchema.integer]),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.unsupportedForType,
        ],
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF"], result: ["attributes": ["mic1": "alice"], "version": 3])
    )
}

extension GroupMethods.GetInfo {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "Profiles of several groups at once (at most 100); ids that name no group come back in notFound, dismissed ones in dismissed.",
        tags: ["group", "im"],
        params: [
            .init("groupIDs", JSONSchema.array(of: JSONSchema.string), required: true)
        ],
        result: "info",
        JSONSchema.object(
            required: ["groups", "notFound", "dismissed"],
            [
                "groups": JSONSchema.array(of: JSONSchema.ref("GroupProfile")),
                "notFound": JSONSchema.array(of: JSONSchema.string),
                "dismissed": JSONSchema.array(of: JSONSchema.string),
            ]
        ),
        errors: [ErrorReason.unauthorized, ErrorReason.invalidParameters],
        example: .init(
            params: ["groupIDs": ["@TGS#2C5SZEAEF", "nope"]],
            result: ["groups": [ContractExamples.groupProfile], "notFound": ["nope"], "dismissed": []]
        )
    )
}

extension GroupMethods.InitAttributes {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract.attributeWrite(
        summary:
            "Replaces every attribute of an AVChatRoom group (the only type with attributes in Tencent IM; members only): at most 16 keys of 1-32 bytes, values at most 4 KB, 16 KB in all. At most 5 writes a second per group (10049). Members get groupAttributeChanged with the full map."
    )
}

extension GroupMethods.Join {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Joins a group: at once (addOpt ANY: members get memberEnter), as a pending application (AUTH: the owner and admins get receiveJoinApplication), or refused (FORBID; Work and Basic groups are joined only by being added).",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("message", JSONSchema.string, "For the approvers: at most 300 bytes"),
        ],
        result: "join",
        JSONSchema.object(required: ["status"], ["status": JSONSchema.oneOf(["JOINED", "PENDING"]), "applicationID": JSONSchema.integer]),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.alreadyMember, ErrorReason.groupFull,
            ErrorReason.notAllowed, ErrorReason.unsupportedForType,
        ],
        writes: true,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "message": "Hi!"], result: ["status": "PENDING", "applicationID": 7])
    )
}

extension GroupMethods.JoinedList {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "The groups the caller (or, for an admin, userID) is a member of, with their profiles; AVChatRoom groups are not listed.",
        tags: ["group", "im"],
        params: [
            .init("userID", JSONSchema.string)
        ],
        result: "groups",
        JSONSchema.object(required: ["groups"], ["groups": JSONSchema.array(of: JSONSchema.ref("GroupProfile"))]),
        errors: [ErrorReason.unauthorized, ErrorReason.permissionDenied],
        example: .init(result: ["groups": [ContractExamples.groupProfile]])
    )
}

extension GroupMethods.MemberList {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "A page of members (limit 1-50, default 50) in join order, filtered by role (ALL, OWNER, ADMIN, COMMON). Start with nextSeq 0 and pass it back until 0 comes back: members who join meanwhile come at the end, none is skipped or repeated.",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("filter", JSONSchema.oneOf(GroupMethods.MemberFilter.self)),
            .init("nextSeq", JSONSchema.integer),
            .init("limit", JSONSchema.integer, "Members per page, 1-50 (default 50)"),
        ],
        result: "page",
        JSONSchema.object(
            required: ["members", "nextSeq"],
            [
                "members": JSONSchema.array(of: JSONSchema.ref("GroupMemberDetail")),
                "nextSeq": JSONSchema.integer,
            ]
        ),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember],
        example: .init(
            params: ["groupID": "@TGS#2C5SZEAEF", "filter": "ALL", "nextSeq": 0],
            result: ["members": [ContractExamples.member], "nextSeq": 0]
        )
    )
}

extension GroupMethods.MembersInfo {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "Details of the named members (at most 100; users who are not members are left out).",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("userIDs", JSONSchema.array(of: JSONSchema.string), required: true),
        ],
        result: "members",
        JSONSchema.object(required: ["members"], ["members": JSONSchema.array(of: JSONSchema.ref("GroupMemberDetail"))]),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.invalidParameters,
        ],
        example: .init(
            params: ["groupID": "@TGS#2C5SZEAEF", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"]],
            result: ["members": [ContractExamples.member]]
        )
    )
}

extension GroupMethods.MuteMember {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Mutes a member for seconds (0 unmutes): owner and admins (admins only ordinary members; nobody the owner). The mute survives leaving and re-joining; a muted member's group.sendMessage gets 10017. Members get memberInfoChanged (not in Meeting or AVChatRoom).",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("userID", JSONSchema.string, required: true),
            .init("seconds", JSONSchema.integer, required: true),
        ],
        result: "mute",
        JSONSchema.object(required: ["muteUntil"], ["muteUntil": JSONSchema.integer]),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
            ErrorReason.unsupportedForType, ErrorReason.invalidParameters,
        ],
        writes: true,
        example: .init(
            params: ["groupID": "@TGS#2C5SZEAEF", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "seconds": 600],
            result: ["muteUntil": 1_795_349_302_624]
        )
    )
}

extension GroupMethods.Quit {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "The caller leaves: members get memberLeave, the caller quitFromGroup (not in AVChatRoom). The owner may quit only a Work group (10009 otherwise); the longest-standing member then becomes owner, and a group left empty is dismissed.",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true)
        ],
        result: "quit",
        JSONSchema.boolean,
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.ownerCannotQuit,
        ],
        writes: true,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF"], result: true)
    )
}

extension GroupMethods.RefuseApplication {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract.applicationHandling(
        summary:
            "Refuses a pending join application (owner and admins). The applicant stays out; the applicant alone gets applicationProcessed. Handling an application twice gives 10024."
    )
}

extension GroupMethods.SetAttributes {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract.attributeWrite(
        summary: "Adds or changes attributes (members only), within the limits of group.initAttributes."
    )
}

extension GroupMethods.SetInfo {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Changes the profile (absent fields stay): name, introduction, notification, faceURL, custom and addOpt (group.types editProfile), allMuted (group.types mute). Members get groupInfoChanged with changeTypes (Tencent's 1 name, 2 introduction, 3 notification, 4 face, 6 custom, 8 shut-up-all) and, for allMuted, allMembersMuted.",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("name", JSONSchema.string),
            .init("introduction", JSONSchema.string),
            .init("notification", JSONSchema.string),
            .init("faceURL", JSONSchema.string),
            .init("addOpt", JSONSchema.oneOf(GroupMethods.AddOption.self)),
            .init("allMuted", JSONSchema.boolean),
            .init("custom", JSONSchema.stringMap),
        ],
        result: "group",
        JSONSchema.ref("GroupProfile"),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAllowed, ErrorReason.notAMember,
            ErrorReason.unsupportedForType, ErrorReason.invalidParameters, ErrorReason.permissionDenied, ErrorReason.invalidInputData,
        ],
        writes: true,
        example: .init(
            params: ["groupID": "@TGS#2C5SZEAEF", "notification": "Meeting on Friday"],
            result: ContractExamples.groupProfile.merging(["notification": "Meeting on Friday"])
        )
    )
}

extension GroupMethods.SetMemberInfo {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Changes one member's nameCard (at most 50 bytes) and custom fields (the member themself, or the owner and admins), role (as group.setMemberRole) and muteUntil (ms since the epoch, 0 unmutes; as group.muteMember), in one transaction.",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("userID", JSONSchema.string, required: true),
            .init("nameCard", JSONSchema.string),
            .init("role", JSONSchema.oneOf(["admin", "member"])),
            .init("muteUntil", JSONSchema.integer),
            .init("custom", JSONSchema.stringMap),
        ],
        result: "set",
        JSONSchema.boolean,
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
            ErrorReason.unsupportedForType, ErrorReason.invalidParameters,
        ],
        writes: true,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "nameCard": "Bobby"], result: true)
    )
}

extension GroupMethods.SetMemberRole {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Makes a member an admin, or an admin a member again: the owner only, in types with admins (Public, Meeting, Community). The owner's role changes only by transfer. Members get grantAdministrator or revokeAdministrator (Meeting: none).",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("userID", JSONSchema.string, required: true),
            .init("role", JSONSchema.oneOf(["admin", "member"]), required: true),
        ],
        result: "set",
        JSONSchema.boolean,
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
            ErrorReason.unsupportedForType, ErrorReason.invalidParameters,
        ],
        writes: true,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "role": "admin"], result: true)
    )
}

extension GroupMethods.SetReceiveOption {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "The caller's message receive option in a group (members only): RECEIVE, NOT_RECEIVE (no newMessage events, live or on replay; every other event still comes) or RECEIVE_NOT_NOTIFY (delivered as RECEIVE: Guild sends no push notifications). Raises no event.",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("option", JSONSchema.oneOf(GroupMethods.ReceiveOption.self), required: true),
        ],
        result: "set",
        JSONSchema.boolean,
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember],
        writes: true,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "option": "RECEIVE_NOT_NOTIFY"], result: true)
    )
}

extension GroupMethods.TransferOwner {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Hands ownership to a member (the owner, or an app admin; AVChatRoom refuses). The old owner stays a member; members get groupInfoChanged with change type 5.",
        tags: ["group", "im"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("userID", JSONSchema.string, required: true),
        ],
        result: "group",
        JSONSchema.ref("GroupInfo"),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
            ErrorReason.unsupportedForType, ErrorReason.userNotFound, ErrorReason.permissionDenied,
        ],
        writes: true,
        example: .init(
            params: ["groupID": "@TGS#2C5SZEAEF", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"],
            result: ContractExamples.group.merging(["owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"])
        )
    )
}

extension GroupMethods.Types {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "The policy table: for each group type, its roles, how one joins, who may invite, edit, kick, mute, dismiss, transfer, change roles, handle applications and list members, member limits, and which events members get.",
        tags: ["group", "im"],
        result: "types",
        JSONSchema.object(required: ["types"], ["types": JSONSchema.array(of: JSONSchema.ref("GroupTypeRules"))]),
        example: .init(result: ["types": []])
    )
}

extension GroupMethods {
    /// The IM groups area's methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let imMethods: [any RPCMethod.Type] = [
        GroupMethods.AcceptApplication.self,
        GroupMethods.Applications.self,
        GroupMethods.DeleteAttributes.self,
        GroupMethods.Dismiss.self,
        GroupMethods.GetAttributes.self,
        GroupMethods.GetInfo.self,
        GroupMethods.InitAttributes.self,
        GroupMethods.Join.self,
        GroupMethods.JoinedList.self,
        GroupMethods.MemberList.self,
        GroupMethods.MembersInfo.self,
        GroupMethods.MuteMember.self,
        GroupMethods.Quit.self,
        GroupMethods.RefuseApplication.self,
        GroupMethods.SendMessage.self,
        GroupMethods.History.self,
        GroupMethods.UnreadCounts.self,
        GroupMethods.MarkRead.self,
        GroupMethods.RecallMessage.self,
        GroupMethods.SetAttributes.self,
        GroupMethods.SetInfo.self,
        GroupMethods.SetMemberInfo.self,
        GroupMethods.SetMemberRole.self,
        GroupMethods.SetReceiveOption.self,
        GroupMethods.TransferOwner.self,
        GroupMethods.Types.self,
    ]
}

extension MethodContract {
    /// The contract of an attribute write (`group.initAttributes`, `group.setAttributes`): the same params,
    /// result, errors and example; only the summary differs.
    static func attributeWrite(summary: String) -> MethodContract {
        MethodContract(
            summary: summary,
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("attributes", JSONSchema.stringMap, required: true),
                .init("version", JSONSchema.integer, "The version this write is based on: if another write came first, 10056"),
            ],
            result: "attributes",
            JSONSchema.object(required: ["attributes", "version"], ["attributes": JSONSchema.stringMap, "version": JSONSchema.integer]),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember,
                ErrorReason.unsupportedForType,
                ErrorReason.invalidParameters, ErrorReason.attributeConflict, ErrorReason.attributeRateLimited,
            ],
            writes: true,
            example: .init(
                params: ["groupID": "@TGS#2C5SZEAEF", "attributes": ["mic1": "alice"]],
                result: ["attributes": ["mic1": "alice"], "version": 3]
            )
        )
    }
}

extension MethodContract {
    /// The contract of handling a join application (`group.acceptApplication`, `group.refuseApplication`): the
    /// same params, result, errors and example; only the summary differs.
    static func applicationHandling(summary: String) -> MethodContract {
        MethodContract(
            summary: summary,
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("applicationID", JSONSchema.integer, required: true),
                .init("message", JSONSchema.string, "For the applicant: at most 300 bytes"),
            ],
            result: "handled",
            JSONSchema.boolean,
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.alreadyProcessed,
                ErrorReason.invalidParameters, ErrorReason.notAllowed, ErrorReason.notAMember, ErrorReason.unsupportedForType,
                ErrorReason.groupFull,
            ],
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "applicationID": 7, "message": "Welcome"], result: true)
        )
    }
}
