import GuildCore

/// Learns of each change of a connection's bound session (the things area: a thing is online while a
/// connection is bound to it).
protocol SessionBindingObserver: Sendable {
    /// `session` was bound to `connection` (nil: unbound). Returns the recording of what that changed, if it
    /// changed anything: a call that answers for the binding (`session.authenticate`) waits for it.
    @discardableResult
    func bound(_ session: ResolvedSession?, on connection: ConnectionState) -> Task<Void, Never>?
}
