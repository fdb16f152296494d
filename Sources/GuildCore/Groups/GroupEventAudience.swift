/// The groups area's audience rule: members of the group when it happened and the users an event names
/// receive it; membership follows `joined` and `left`. Replay applies the same rule in the store
/// (membership history and the event's named and excluded users).
public struct GroupEventAudience: EventAudience {
    /// `group`.
    public static let groupArea = "group"

    public var area: String { Self.groupArea }

    public var kinds: [String] { GroupEvent.Kind.allCases.map(\.rawValue) }

    /// Creates the rule.
    public init() {}

    public func routing(of event: CommittedEvent) -> EventRouting {
        guard let box = event.payload(as: GroupEvent.self) else { return EventRouting() }
        let addressees: [String] =
            switch box.event.audience {
            case .admins: []
            case .named: box.event.namedRecipients
            case .members: box.event.users
            }
        return EventRouting(addressees: addressees, joining: box.event.joined, leaving: box.event.left)
    }

    public func admits(_ event: CommittedEvent, userID: String, following: inout Bool) -> Bool {
        // Read through the box: copying the event struct out would retain each of its fields.
        guard let box = event.payload(as: GroupEvent.self) else { return false }
        if !box.event.joined.isEmpty, box.event.joined.contains(userID) { following = true }
        let entitled = box.event.isVisible(to: userID, member: following)
        if !box.event.left.isEmpty, box.event.left.contains(userID) { following = false }
        return entitled
    }
}
