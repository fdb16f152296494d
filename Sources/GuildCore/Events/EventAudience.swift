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
    /// The members of the area's event bodies besides ``EventField/common``.
    var fields: [EventField] { get }
    /// Who may replay the area's events (each event's ``LoggableEvent/replayAudience`` under this rule).
    var replay: ReplayRule { get }
    /// Whether a user's subscription receives the area's events only when it names their topic (buckets: a
    /// subscriber asks for the buckets it watches). Admins watching everything receive them regardless.
    var namedTopicsOnly: Bool { get }
    /// Whether subscriptions follow the area's topics (groups: their members do, as the store's snapshot and
    /// the events' joins and leaves say). Subscriptions naming a topic of an area that is not followed are
    /// filed under it at once.
    var followsTopics: Bool { get }
}

extension EventAudience {
    public var namedTopicsOnly: Bool { false }
    public var followsTopics: Bool { false }
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
    /// Whoever follows one of these topics receives it too (for objects: the members of a group with read
    /// access, as the group's membership stands at the event).
    public var followersOf: [EventTopic]
    /// Every user receives it (an object anyone may read).
    public var everyone: Bool
    /// When any: only subscriptions on connections bound to one of these installations receive it (a
    /// command's result, pushed to installations as Kii does), among those it would reach otherwise.
    public var installations: [String] = []

    /// Creates a routing.
    public init(
        addressees: [String] = [],
        joining: [String] = [],
        leaving: [String] = [],
        followersSee: Bool = false,
        excluded: [String] = [],
        followersOf: [EventTopic] = [],
        everyone: Bool = false
    ) {
        self.addressees = addressees
        self.joining = joining
        self.leaving = leaving
        self.followersSee = followersSee
        self.excluded = excluded
        self.followersOf = followersOf
        self.everyone = everyone
    }

    /// Whether `userID` receives the event, given whether their subscription follows its topic (and, for
    /// ``followersOf``, which other topics it follows); updates `following` as the event changes it (a join
    /// before deciding, a leave after). `installationID` is the installation the subscription's connection is
    /// bound to (see ``installations``).
    public func admits(
        _ userID: String,
        installationID: String? = nil,
        following: inout Bool,
        follows: (EventTopic) -> Bool = { _ in false }
    ) -> Bool {
        if !self.joining.isEmpty, self.joining.contains(userID) { following = true }
        let entitled =
            (self.excluded.isEmpty || !self.excluded.contains(userID))
            && ((self.followersSee && following) || self.everyone || self.addressees.contains(userID)
                || (!self.followersOf.isEmpty && self.followersOf.contains(where: follows)))
            && (self.installations.isEmpty || installationID.map { self.installations.contains($0) } == true)
        if !self.leaving.isEmpty, self.leaving.contains(userID) { following = false }
        return entitled
    }
}
