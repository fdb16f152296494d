import Dispatch
import Foundation
import Logging
import Synchronization

/// Ends the process with status 1 if shutdown is still running `deadline` after it began: in-flight work that
/// could be neither finished nor cancelled (a read blocked in SQLite) must not keep a stopped daemon alive.
///
/// It is armed by the first of: SIGTERM or SIGINT arriving (watched on a dispatch queue of its own, so arming
/// never waits for Swift's cooperative pool, which stuck work may be holding: one CI run under the full suite's
/// load measured an 11 s exit for a 3 s backstop when it was armed only from the service group's graceful
/// shutdown handler), or ``arm()`` (shutdown for any other reason, such as idle exit). The wait itself runs on a
/// thread of its own.
final class ShutdownBackstop: Sendable {
    private let deadline: Duration
    private let logger: Logger
    private let armed = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "guildd-backstop-signals")
    private let sources = Mutex<[SignalSources.Kept]>([])

    init(deadline: Duration, logger: Logger) {
        self.deadline = deadline
        self.logger = logger
    }

    /// Arms the backstop when one of `signals` arrives (the service group's own handling of them still runs:
    /// every dispatch source of a signal fires). Their default action must already be off: ``EarlySignals``
    /// turns it off before the first dispatch source of each, and a `signal(_, SIG_IGN)` after that replaces the
    /// handler libdispatch installed with that first source, so that no source fires again. Returns once the sources
    /// are registered (``SignalSources``).
    func watch(_ signals: [Int32]) async {
        let watching = await SignalSources.watch(signals, queue: self.queue) { [weak self] _ in self?.arm() }
        self.sources.withLock { $0.append(contentsOf: watching) }
    }

    /// Starts the countdown, once.
    func arm() {
        guard !self.armed.exchange(true, ordering: .relaxed) else { return }
        let deadline = self.deadline
        let logger = self.logger
        let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
        let thread = Thread {
            Thread.sleep(forTimeInterval: seconds)
            logger.error("shutdown did not finish in time: exiting", metadata: ["deadline": "\(deadline)"])
            _exit(1)
        }
        thread.name = "guildd-backstop"
        thread.start()
    }
}
