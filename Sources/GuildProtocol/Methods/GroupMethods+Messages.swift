import GuildJSON

extension GroupMethods {
    /// A group message's priority (Tencent's `MsgPriority`). Any letter case. In an AVChatRoom over its
    /// per-second rate, lower priorities are discarded first.
    public enum MessagePriority: String, WireEnum {
        case high = "High"
        case normal = "Normal"
        case low = "Low"
        case lowest = "Lowest"
    }

    /// Which way `group.history` pages from its starting seq. Any letter case.
    public enum HistoryDirection: String, WireEnum {
        case older
        case newer
    }

    /// The `atUserList` entry that mentions every member (Tencent's `kImSDK_MesssageAtALL`).
    public static let mentionAll = "__kImSDK_MesssageAtALL__"

    /// `group.sendMessage`: a text or custom message to the group's members.
    public enum SendMessage: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            /// A text body; exactly one of `text` and `custom`.
            public var text: String?
            /// A custom body: any JSON value.
            public var custom: JSONValue?
            /// `Normal` when absent.
            public var priority: MessagePriority?
            /// Members to mention (at most 30), or ``GroupMethods/mentionAll``.
            public var atUserList: [String]?
            /// Opaque data carried with the message.
            public var cloudCustomData: String?
            public init(
                groupID: String,
                text: String? = nil,
                custom: JSONValue? = nil,
                priority: MessagePriority? = nil,
                atUserList: [String]? = nil,
                cloudCustomData: String? = nil
            ) {
                self.groupID = groupID
                self.text = text
                self.custom = custom
                self.priority = priority
                self.atUserList = atUserList
                self.cloudCustomData = cloudCustomData
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            /// The message's sequence number in its group (1, 2, ...); 0 when it was discarded.
            public var messageSeq: Int64
            /// The message's unique id.
            public var msgID: String
            /// When it was sent, ms since the Unix epoch.
            public var time: Int64
            /// False when an AVChatRoom over its rate discarded it (nobody received it).
            public var delivered: Bool
            public init(messageSeq: Int64, msgID: String, time: Int64, delivered: Bool) {
                self.messageSeq = messageSeq
                self.msgID = msgID
                self.time = time
                self.delivered = delivered
            }
        }
        public static let name = "group.sendMessage"

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

    /// A stored group message as `group.history` returns it.
    public struct GroupMessage: Codable, Hashable, Sendable {
        public var seq: Int64
        public var msgID: String
        public var sender: String
        public var time: Int64
        public var priority: MessagePriority
        public var text: String?
        public var custom: JSONValue?
        public var cloudCustomData: String?
        public var atUserList: [String]?
        /// Whether the caller is named in `atUserList` (or all members are).
        public var mentionsMe: Bool
        /// True once recalled: the body is gone.
        public var revoked: Bool
        public init(
            seq: Int64,
            msgID: String,
            sender: String,
            time: Int64,
            priority: MessagePriority,
            text: String? = nil,
            custom: JSONValue? = nil,
            cloudCustomData: String? = nil,
            atUserList: [String]? = nil,
            mentionsMe: Bool = false,
            revoked: Bool = false
        ) {
            self.seq = seq
            self.msgID = msgID
            self.sender = sender
            self.time = time
            self.priority = priority
            self.text = text
            self.custom = custom
            self.cloudCustomData = cloudCustomData
            self.atUserList = atUserList
            self.mentionsMe = mentionsMe
            self.revoked = revoked
        }
    }

    /// `group.history`: a page of a group's messages by seq.
    public enum History: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            /// Where the page starts (included); the newest message when absent.
            public var seq: Int64?
            /// `older` (default) or `newer`.
            public var direction: HistoryDirection?
            /// Messages per page, 1 to 20 (default 20).
            public var count: Int?
            public init(groupID: String, seq: Int64? = nil, direction: HistoryDirection? = nil, count: Int? = nil) {
                self.groupID = groupID
                self.seq = seq
                self.direction = direction
                self.count = count
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            /// In paging order: descending seq for `older`, ascending for `newer`.
            public var messages: [GroupMessage]
            /// The next page's `seq` (same direction); 0 when there is nothing more to see.
            public var nextSeq: Int64
            public var isFinished: Bool
            public init(messages: [GroupMessage], nextSeq: Int64, isFinished: Bool) {
                self.messages = messages
                self.nextSeq = nextSeq
                self.isFinished = isFinished
            }
        }
        public static let name = "group.history"

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

    /// A member's unread state in one group.
    public struct UnreadCount: Codable, Hashable, Sendable {
        public var groupID: String
        /// Messages after the member's read mark (not their own); 0 in types without unread counts.
        public var unread: Int64
        /// A message since the read mark mentions the member.
        public var mentioned: Bool
        /// The member chose `RECEIVE_NOT_NOTIFY`: show a badge without the number.
        public var badgeOnly: Bool
        /// The seq the member has read up to.
        public var readSeq: Int64
        public init(groupID: String, unread: Int64, mentioned: Bool, badgeOnly: Bool, readSeq: Int64) {
            self.groupID = groupID
            self.unread = unread
            self.mentioned = mentioned
            self.badgeOnly = badgeOnly
            self.readSeq = readSeq
        }
    }

    /// `group.unreadCounts`: the caller's unread counts, in one group or all of theirs.
    public enum UnreadCounts: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            /// One group; every group of the caller when absent.
            public var groupID: String?
            public init(groupID: String? = nil) { self.groupID = groupID }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var groups: [UnreadCount]
            /// The sum of `unread` over the groups that are not `badgeOnly`.
            public var total: Int64
            public init(groups: [UnreadCount], total: Int64) {
                self.groups = groups
                self.total = total
            }
        }
        public static let name = "group.unreadCounts"

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

    /// `group.markRead`: moves the caller's read mark in a group.
    public enum MarkRead: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            /// Read up to this seq (included); the newest message when absent.
            public var seq: Int64?
            public init(groupID: String, seq: Int64? = nil) {
                self.groupID = groupID
                self.seq = seq
            }
        }
        public typealias Result = UnreadCount
        public static let name = "group.markRead"

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

    /// `group.recallMessage`: recalls a message (its sender within 2 minutes; the owner and admins any time).
    public enum RecallMessage: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var msgID: String
            public init(groupID: String, msgID: String) {
                self.groupID = groupID
                self.msgID = msgID
            }
        }
        public typealias Result = Bool
        public static let name = "group.recallMessage"

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
}
