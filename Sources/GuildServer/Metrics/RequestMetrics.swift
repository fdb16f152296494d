import Atomics
import CoreMetrics
import Dispatch
import GuildProtocol
import Synchronization

/// The dispatcher's instruments (swift-metrics; the daemon chooses the backend, Prometheus in guildd): requests
/// and their latency per method, and error replies per code. A name nobody registered is counted as
/// `(unknown)`, so callers cannot grow the label set.
///
/// Each method's instruments are made the first time it is called, or by ``prepareAll()``, which guildd calls
/// once start-up is over, so that every method is listed (at zero) before anything scrapes. Not at start-up:
/// swift-prometheus 2.4.1 copies a metric's whole label-set dictionary for each label set it adds, and making
/// ~150 methods' instruments cost a socket-activated start about 0.55 ms on the way to its first reply. A request
/// costs an atomic load (its method's ``Slot``), an atomic add and a histogram update.
final class RequestMetrics: Sendable {
    /// One method's instruments.
    final class Instruments: Sendable {
        let requests: Counter
        let latency: Timer

        init(method: String, factory: any MetricsFactory) {
            self.requests = Counter(label: "guild_requests_total", dimensions: [("method", method)], factory: factory)
            self.latency = Timer(label: RequestMetrics.latencyLabel, dimensions: [("method", method)], factory: factory)
        }
    }

    /// Where one method's instruments are kept once made. Kept in the dispatcher's method table, so that a
    /// request looks its method up once.
    final class Slot: Sendable {
        let method: String
        private let factory: any MetricsFactory
        private let made = ManagedAtomicLazyReference<Instruments>()

        init(method: String, factory: any MetricsFactory) {
            self.method = method
            self.factory = factory
        }

        /// The method's instruments, made on first use. Two threads that both find them missing both make them;
        /// one set is kept, and the backend hands both the same metrics for the same labels.
        var instruments: Instruments {
            if let made = self.made.load() { return made }
            return self.made.storeIfNilThenLoad(Instruments(method: self.method, factory: self.factory))
        }

        /// Whether the instruments have been made.
        var isMade: Bool { self.made.load() != nil }
    }

    /// The latency histogram's name (guildd sets its buckets; see `Sources/guildd/Metrics.swift`).
    static let latencyLabel = "guild_request_duration_seconds"

    private let factory: any MetricsFactory
    private let methods: [String: Slot]
    private let unknown: Slot
    private let errors = Mutex<[Int: Counter]>([:])

    /// Instruments for the methods `names`, made with `factory` (default: the process's metrics system) when
    /// first needed.
    init(methods names: [String], factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        var methods: [String: Slot] = [:]
        for name in names { methods[name] = Slot(method: name, factory: factory) }
        self.methods = methods
        self.unknown = Slot(method: "(unknown)", factory: factory)
    }

    /// The slot of `method`'s instruments (`(unknown)`'s for a name nobody registered).
    func slot(for method: String) -> Slot {
        self.methods[method] ?? self.unknown
    }

    /// Makes every method's instruments that no request has made yet.
    func prepareAll() {
        for slot in self.methods.values { _ = slot.instruments }
        _ = self.unknown.instruments
    }

    /// Counts one reply with a method's `instruments` that took `nanoseconds`, and its error code if it failed.
    func record(_ instruments: Instruments, nanoseconds: UInt64, error: ErrorCode?) {
        instruments.requests.increment()
        instruments.latency.recordNanoseconds(Int64(truncatingIfNeeded: nanoseconds))
        if let error { self.errorCounter(error.rawValue).increment() }
    }

    private func errorCounter(_ code: Int) -> Counter {
        self.errors.withLock { counters in
            if let counter = counters[code] { return counter }
            let counter = Counter(label: "guild_request_errors_total", dimensions: [("code", String(code))], factory: self.factory)
            counters[code] = counter
            return counter
        }
    }
}

extension RequestMetrics {
    /// A monotonic timestamp in nanoseconds, to pass back to ``record(_:started:result:)``.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Counts one reply with a method's instruments (`slot`; nil: a method nobody registered), timed from
    /// `started` (``now()``).
    func record(_ slot: Slot?, started: UInt64, result: Result<[UInt8], RPCError>) {
        let error: ErrorCode? =
            switch result {
            case .success: nil
            case .failure(let error): error.code
            }
        self.record((slot ?? self.unknown).instruments, nanoseconds: Self.now() &- started, error: error)
    }
}
