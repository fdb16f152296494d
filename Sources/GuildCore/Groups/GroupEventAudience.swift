/// The groups area's audience rule: members of the group when it happened and the users an event names
/// receive it; membership follows `joined` and `left` (each event's ``GroupEvent/routing``). Replay applies the same rule in the store
/// (membership history and the event's named and excluded users).
public struct GroupEventAudience: EventAudience {
    /// `group`.
    public static let groupArea = "group"

    public var area: String { Self.groupArea }

    public var kinds: [String] { GroupEvent.Kind.allCases.map(\.rawValue) }

    /// Members follow their groups' topics.
    public var followsTopics: Bool { true }

    /// Creates the rule.
    public init() {}
}
