/// Who may receive an area's events live: each area owns one, registered by its topic area (see
/// ``EventAreas``). Replay asks the same question of the store (the area's replay condition there).
///
/// A user subscription keeps one piece of state per topic: whether it follows the topic (for groups: whether
/// the user is a member). It starts from the store's snapshot and changes with the events themselves, as
/// ``EventRouting/joining`` and ``EventRouting/leaving`` say. The fan-out offers an event to the subscriptions
/// that follow its topic and to those of the users its routing names; this rule decides among them.
public protocol EventAudience: Sendable {
    /// The topic area, e.g. `group`.
    var area: String { get }
    /// The event kinds the area appends.
    var kinds: [String] { get }
    /// Which users' subscriptions the event concerns beyond its topic's followers, and how it changes who
    /// follows its topic.
    func routing(of event: CommittedEvent) -> EventRouting
    /// Whether `userID` receives `event`, given whether their subscription follows the event's topic;
    /// updates `following` as the event changes it (a join before deciding, a leave after).
    func admits(_ event: CommittedEvent, userID: String, following: inout Bool) -> Bool
}

/// Which subscriptions an event concerns besides those following its topic, and the follow changes it makes.
public struct EventRouting: Sendable {
    /// Users the event names: offered to their subscriptions even when they do not follow its topic.
    public var addressees: [String]
    /// Users who follow the topic from this event on (applied before it is delivered, so they see it).
    public var joining: [String]
    /// Users who stop following the topic with this event (applied after it is delivered, so they see it too).
    public var leaving: [String]

    /// Creates a routing.
    public init(addressees: [String] = [], joining: [String] = [], leaving: [String] = []) {
        self.addressees = addressees
        self.joining = joining
        self.leaving = leaving
    }
}
