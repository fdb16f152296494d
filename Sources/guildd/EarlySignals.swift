import Dispatch
import Glibc
import ServiceLifecycle
import Synchronization

/// Turns a SIGTERM or SIGINT that arrives before the service group watches signals into a graceful shutdown.
///
/// guildd answers on its socket as soon as the server is built, a moment before ``ServiceGroup`` starts and
/// installs its own signal handling; a SIGTERM in between met the signal's default action, and the process died
/// with status 143 without closing the database (every time when sent as the socket appeared; `JournalTests` saw
/// it under the full suite's load, where that moment can last seconds). Created first thing, this turns the
/// signals' default action off and, once it knows the group (``forward(to:)``), asks it for a graceful shutdown
/// when one arrives: at once for a signal that came before, and for each later one.
///
/// The group's `triggerGracefulShutdown()` remembers a request made before it runs and tolerates one that races
/// its own handling of the same signal. (This was a service that returned when a signal had come, which the group
/// took as a service finishing "unexpectedly", an error exit, whenever the signal had reached the group too.)
final class EarlySignals: Sendable {
    /// Whether a signal came, and the group to forward it to once known.
    private final class Forwarding: Sendable {
        private struct State {
            var received = false
            var group: ServiceGroup?
        }

        private let state = Mutex(State())

        func forward(to group: ServiceGroup) async {
            let received = self.state.withLock { state in
                state.group = group
                return state.received
            }
            if received { await group.triggerGracefulShutdown() }
        }

        func received() {
            let group = self.state.withLock { state in
                state.received = true
                return state.group
            }
            if let group { Task { await group.triggerGracefulShutdown() } }
        }
    }

    private let forwarding: Forwarding
    /// Kept for the life of the process: the first dispatch source of a signal installs libdispatch's handler,
    /// which the group's and the backstop's sources share.
    private let sources: [SignalSources.Kept]

    /// Starts watching `signals` (their default action turned off, as the service group does); returns once the
    /// sources are registered (``SignalSources``).
    init(signals: [Int32]) async {
        for number in signals { signal(number, SIG_IGN) }
        let forwarding = Forwarding()
        self.forwarding = forwarding
        self.sources = await SignalSources.watch(signals, queue: .global()) { _ in forwarding.received() }
    }

    /// From now on a watched signal shuts `group` down gracefully, and so does one that came before.
    func forward(to group: ServiceGroup) async {
        await self.forwarding.forward(to: group)
    }
}
