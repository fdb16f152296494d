import GuildJSON

/// One group of a grouped state history (``GroupedStateQuery``): its range, both ends included, with the
/// values of the query's aggregations, in their order, or (a query without aggregations) its states.
public struct StateHistoryGroup: Sendable, Hashable {
    /// The group's first timestamp (ms).
    public var from: Int64
    /// The group's last timestamp (ms).
    public var to: Int64
    /// Each aggregation's value: a number, or null when the group has no value to aggregate.
    public var values: [JSONValue]
    /// The group's states, by timestamp.
    public var states: [ThingState]

    public init(from: Int64, to: Int64, values: [JSONValue] = [], states: [ThingState] = []) {
        self.from = from
        self.to = to
        self.values = values
        self.states = states
    }
}
