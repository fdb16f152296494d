import CoreMetrics

/// The event fan-out's counters in `system.metrics`: notifications written to subscribers (live and replayed),
/// and subscriptions ended for lagging. Counted once per written batch, not per event.
enum EventMetrics {
    private static let delivered = Counter(label: "guild_events_delivered_total")
    private static let lagged = Counter(label: "guild_subscriptions_lagged_total")

    /// `count` notifications written to one subscriber.
    static func delivered(_ count: Int) { Self.delivered.increment(by: Int64(count)) }

    /// A subscription ended because it fell behind.
    static func lagging() { Self.lagged.increment() }
}
