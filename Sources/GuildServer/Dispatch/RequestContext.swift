import GuildCore
import Logging
import Synchronization

/// What a method handler knows about its call: who is calling, on which connection, and where to log.
public struct RequestContext: Sendable {
    /// The caller, with its session revalidated for this call.
    public var caller: Caller
    /// The connection the call arrived on (to bind or unbind a session).
    let connection: ConnectionState
    /// The server's logger (internal errors are logged by the dispatcher with their method).
    public var logger: Logger
    /// Work to run once the reply has been written (e.g. start a subscription's notifications).
    let afterReply: AfterReply

    /// The user service's session generations.
    let generations: SessionGenerations
    /// Told of every binding.
    let bindingObserver: (any SessionBindingObserver)?

    /// Binds a session to the connection: later calls on it act as that session's user (or thing). `epoch`
    /// is ``SessionGenerations/epoch`` from before the read that found the session, when one did: a session
    /// revoked (or a thing disabled) while it was read is checked again on the next call. Returns the recording of
    /// what the binding changed (a thing's presence), if anything, for a call that answers for it to wait for.
    @discardableResult
    func bind(_ session: ResolvedSession?, checkedSince epoch: UInt64? = nil) -> Task<Void, Never>? {
        self.connection.session = session.map { session in
            let generation =
                epoch.map { self.generations.generation(of: session.user.id, checkedSince: $0) }
                ?? self.generations.current(session.user.id)
            return (session, generation)
        }
        return self.bindingObserver?.bound(session, on: self.connection)
    }
}

/// What an inline handler (run on the connection's event loop, never touching storage) knows.
public struct InlineContext: Sendable {
    /// The connecting process.
    public var peer: PeerCredentials
    /// Whether the connection has admin rights.
    public var isAdmin: Bool
}

/// Work a handler schedules for after its reply is on the wire.
final class AfterReply: Sendable {
    private let work = Mutex<[@Sendable () async -> Void]>([])

    /// Schedules `body` to run after the reply is written.
    func schedule(_ body: @escaping @Sendable () async -> Void) {
        self.work.withLock { $0.append(body) }
    }

    /// Runs the scheduled work, in order.
    func run() async {
        for body in self.work.withLock({ $0 }) { await body() }
    }
}
