/// Who may receive an area's events live: each area owns one, registered by its topic area (see
/// ``EventAreas``). Replay asks the same question of the store (the area's replay condition there).
///
/// A user subscription keeps one piece of state per topic: whether it follows the topic (for groups: whether
/// the user is a member). It starts from the store's snapshot and changes with the events themselves, as
/// ``EventRouting/joining`` and ``EventRouting/leaving`` say. Each event states its own audience once, as an
/// ``EventRouting`` (``LoggableEvent/routing``): the fan-out offers it to the subscriptions that follow its
/// topic and to those of the users it names, and each decides with ``EventRouting/admits(_:following:)``, with
/// no call into the area per subscriber.
public protocol EventAudience: Sendable {
    /// The topic area, e.g. `group`.
    var area: String { get }
    /// The event kinds the area appends.
    var kinds: [String] { get }
}

/// An event's audience: which subscriptions it concerns besides those following its topic, who receives it,
/// and the follow changes it makes.
public struct EventRouting: Sendable {
    /// Users the event names: offered to their subscriptions even when they do not follow its topic, and
    /// entitled to it.
    public var addressees: [String]
    /// Users who follow the topic from this event on (applied before it is delivered, so they see it).
    public var joining: [String]
    /// Users who stop following the topic with this event (applied after it is delivered, so they see it too).
    public var leaving: [String]
    /// Whether the topic's followers receive it (for groups: the members, unless it is for named users only).
    public var followersSee: Bool
    /// Users who get no copy although they would (a member who receives no messages); never on the wire.
    public var excluded: [String]

    /// Creates a routing.
    public init(
        addressees: [String] = [],
        joining: [String] = [],
        leaving: [String] = [],
        followersSee: Bool = false,
        excluded: [String] = []
    ) {
        self.addressees = addressees
        self.joining = joining
        self.leaving = leaving
        self.followersSee = followersSee
        self.excluded = excluded
    }

    /// Whether `userID` receives the event, given whether their subscription follows its topic; updates
    /// `following` as the event changes it (a join before deciding, a leave after).
    public func admits(_ userID: String, following: inout Bool) -> Bool {
        if !self.joining.isEmpty, self.joining.contains(userID) { following = true }
        let entitled =
            (self.excluded.isEmpty || !self.excluded.contains(userID))
            && ((self.followersSee && following) || self.addressees.contains(userID))
        if !self.leaving.isEmpty, self.leaving.contains(userID) { following = false }
        return entitled
    }
}
