import GuildCore

/// Learns of each change of a connection's bound session (the things area: a thing is online while a
/// connection is bound to it).
protocol SessionBindingObserver: Sendable {
    /// `session` was bound to `connection` (nil: unbound).
    func bound(_ session: ResolvedSession?, on connection: ConnectionState)
}
