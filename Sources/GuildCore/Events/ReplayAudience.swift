/// Who may replay one event, as the log records it beside the event in its area's audience tables
/// (``ReplayRule``). The rules compute it once, with the event (``LoggableEvent/replayAudience``); each engine
/// only stores it.
public struct ReplayAudience: Sendable, Hashable {
    /// The principals it names: users, a thing, or `installation:<id>` for a command's result.
    public var readers: [String]
    /// The groups whose members, at the time of the event, may replay it.
    public var groups: [String]
    /// Users who never replay it, though the rule would admit them.
    public var excluded: [String]
    /// Users who became members of the event's group with it (they replay from here on).
    public var joined: [String]
    /// Users who stopped being members of the event's group with it (they replay up to here).
    public var left: [String]

    /// An audience.
    public init(readers: [String] = [], groups: [String] = [], excluded: [String] = [], joined: [String] = [], left: [String] = []) {
        self.readers = readers
        self.groups = groups
        self.excluded = excluded
        self.joined = joined
        self.left = left
    }
}
