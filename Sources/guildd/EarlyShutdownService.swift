import Dispatch
import Foundation
import ServiceLifecycle
import Synchronization

/// Turns a SIGTERM or SIGINT that arrives before the service group watches signals into a graceful shutdown.
///
/// guildd answers on its socket as soon as the server is built, a moment before ``ServiceGroup`` starts and
/// installs its own signal handling; a SIGTERM in between met the signal's default action, and the process died
/// with status 143 without closing the database (every time when sent as the socket appeared; `JournalTests` saw
/// it under the full suite's load, where that moment can last seconds). Created first thing, this turns the
/// signals' default action off and notes their arrival; when the group starts it, ``run()`` returns at once if
/// one came (the group then shuts down gracefully: `.gracefullyShutdownGroup`), and otherwise leaves later
/// signals to the group's own handling.
final class EarlyShutdownService: Service, Sendable {
    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private let received = Flag()
    /// Kept for the life of the process: the first dispatch source of a signal installs libdispatch's handler,
    /// which the group's and the backstop's sources share.
    private let sources: Mutex<[any DispatchSourceSignal]>

    /// Starts watching `signals` (their default action turned off, as the service group does).
    init(signals: [Int32]) {
        let received = self.received
        self.sources = Mutex(
            signals.map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { received.value.store(true, ordering: .releasing) }
                source.resume()
                return source
            }
        )
    }

    /// Returns at once when a watched signal arrived before the group ran; otherwise waits for the group's own
    /// shutdown. The group installs its signal handling before it starts its services, so from here on a signal
    /// is the group's to handle: this service returning then, while the group shuts down in its own order, would
    /// be an error.
    func run() async throws {
        if self.received.value.load(ordering: .acquiring) { return }
        try? await gracefulShutdown()
    }
}
