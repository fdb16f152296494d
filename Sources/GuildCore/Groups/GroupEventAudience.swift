/// The groups area's audience rule: members of the group when it happened and the users an event names
/// receive it; membership follows `joined` and `left` (each event's ``GroupEvent/routing``). Replay applies the same rule in the store
/// (membership history and the event's named and excluded users).
public struct GroupEventAudience: EventAudience {
    /// `group`.
    public static let groupArea = "group"

    public var area: String { Self.groupArea }

    public var kinds: [String] { GroupEvent.Kind.allCases.map(\.rawValue) }

    public var fields: [EventField] {
        [
            EventField("groupID", .string, always: true, "The group"),
            EventField("actor", .string, "The acting user; absent when an admin without a session, or the system, acted"),
            EventField("byAdmin", .boolean, "Whether the actor used admin rights (absent when not)"),
            EventField("users", .strings, always: true, "The users the event is about"),
            EventField(
                "changes",
                .object,
                "What changed: name, type, owner, previousOwner, reason, introduction, notification, faceURL, custom, shutUpAll, addOpt, "
                    + "changeTypes (Tencent's numbers), attributes and version, muteUntil, muted, applicationID, accepted, message, userDeleted; "
                    + "for messages messageSeq, msgID, priority, text, custom, cloudCustomData, atUserList, revoked; "
                    + "for unreadChanged unread, mentioned, readSeq"
            ),
        ]
    }

    /// The users an event names (`event_subject`), and the members of its group at the time when its tag is
    /// `members`; never the users it excludes (`event_excluded`).
    public var replay: ReplayRule {
        ReplayRule(
            readers: .init(table: "event_subject", column: "userID"),
            topicMembersTag: "members",
            excluded: "event_excluded"
        )
    }

    /// Members follow their groups' topics.
    public var followsTopics: Bool { true }

    /// Creates the rule.
    public init() {}
}
