import GuildJSON

extension GroupMethods.SendMessage {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Sends a text or custom (JSON) message, at most 12 KB with cloudCustomData, to the group's members as a newMessage event; returns its per-group seq (1, 2, ... gap-free) and a unique msgID. Members only; a muted member, or an ordinary member while allMuted, gets 10017; more than the per-user rate gets 10023. atUserList names up to 30 members, or __kImSDK_MesssageAtALL__ for all (not in AVChatRoom). An AVChatRoom delivers at most its per-second rate, keeping higher priorities: the result says whether this message was delivered.",
        tags: ["group", "im", "messages"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("text", JSONSchema.string, "A text body; exactly one of text and custom."),
            .init("custom", ["description": "A custom body: any JSON value."]),
            .init("priority", JSONSchema.oneOf(GroupMethods.MessagePriority.self), "Normal when absent."),
            .init("atUserList", JSONSchema.array(of: JSONSchema.string), "Members to mention (at most 30), or __kImSDK_MesssageAtALL__."),
            .init("cloudCustomData", JSONSchema.string),
        ],
        result: "sent",
        JSONSchema.object(
            required: ["messageSeq", "msgID", "time", "delivered"],
            ["messageSeq": JSONSchema.integer, "msgID": JSONSchema.string, "time": JSONSchema.integer, "delivered": JSONSchema.boolean]
        ),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.muted,
            ErrorReason.invalidParameters, ErrorReason.unsupportedForType, ErrorReason.sendRateLimited, ErrorReason.messageTooLong,
        ],
        writes: true,
        example: .init(
            params: ["groupID": "@TGS#2C5SZEAEF", "text": "Hello"],
            result: ["messageSeq": 1, "msgID": "1-1700000000000-9c2f0b1d4e5a6f70", "time": 1_700_000_000_000, "delivered": true]
        )
    )
}

extension GroupMethods.History {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "A page of the group's messages by seq, from seq (included; the newest when absent), older (default) or newer, 1 to 20 a page. Members see what the type allows: Meeting and Community members see messages from before they joined, Work and Public members only those since; AVChatRoom keeps no history (10007). Recalled messages come without a body; messages past the retention (default 7 days) are gone.",
        tags: ["group", "im", "messages"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("seq", JSONSchema.integer, "1 to the group's newest seq."),
            .init("direction", JSONSchema.oneOf(GroupMethods.HistoryDirection.self)),
            .init("count", JSONSchema.integer, "1 to 20 (default 20)."),
        ],
        result: "page",
        JSONSchema.object(
            required: ["messages", "nextSeq", "isFinished"],
            ["messages": JSONSchema.array(of: JSONSchema.object), "nextSeq": JSONSchema.integer, "isFinished": JSONSchema.boolean]
        ),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember,
            ErrorReason.unsupportedForType, ErrorReason.invalidParameters,
        ],
        writes: false,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "count": 20], result: ["messages": [], "nextSeq": 0, "isFinished": true])
    )
}

extension GroupMethods.UnreadCounts {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "The caller's unread counts: per group (one, or all of theirs), with a mentioned marker and badgeOnly for RECEIVE_NOT_NOTIFY, and a total. Work, Public and Community count; Meeting and AVChatRoom always report 0; NOT_RECEIVE reports 0. The caller's own messages do not count.",
        tags: ["group", "im", "messages"],
        params: [.init("groupID", JSONSchema.string, "One group; all of the caller's when absent.")],
        result: "counts",
        JSONSchema.object(required: ["groups", "total"], ["groups": JSONSchema.array(of: JSONSchema.object), "total": JSONSchema.integer]),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember],
        writes: false,
        example: .init(result: ["groups": [], "total": 0])
    )
}

extension GroupMethods.MarkRead {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Moves the caller's read mark in a group to seq (the newest when absent), clearing the mentioned marker up to it; returns the new count. The caller's connections get unreadChanged.",
        tags: ["group", "im", "messages"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("seq", JSONSchema.integer, "0 to the group's newest seq."),
        ],
        result: "count",
        JSONSchema.object(
            required: ["groupID", "unread", "mentioned", "badgeOnly", "readSeq"],
            [
                "groupID": JSONSchema.string, "unread": JSONSchema.integer, "mentioned": JSONSchema.boolean, "badgeOnly": JSONSchema.boolean,
                "readSeq": JSONSchema.integer,
            ]
        ),
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember,
            ErrorReason.invalidParameters,
        ],
        writes: true,
        example: .init(
            params: ["groupID": "@TGS#2C5SZEAEF"],
            result: ["groupID": "@TGS#2C5SZEAEF", "unread": 0, "mentioned": false, "badgeOnly": false, "readSeq": 0]
        )
    )
}

extension GroupMethods.RecallMessage {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Recalls a message: its sender within 2 minutes (then 10031), the owner, an admin or an app admin at any time. The body is removed from storage and history; members who could see it get messageRevoked. AVChatRoom keeps no messages to recall (10007).",
        tags: ["group", "im", "messages"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("msgID", JSONSchema.string, required: true),
        ],
        result: "recalled",
        JSONSchema.boolean,
        errors: [
            ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
            ErrorReason.unsupportedForType, ErrorReason.messageNotFound, ErrorReason.recallTimeLimit,
        ],
        writes: true,
        example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "msgID": "1-1700000000000-9c2f0b1d4e5a6f70"], result: true)
    )
}
