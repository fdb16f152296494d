import CoreMetrics
import Dispatch
import GuildProtocol
import Synchronization

/// The dispatcher's instruments (swift-metrics; the daemon chooses the backend, Prometheus in guildd): requests
/// and their latency per method, and error replies per code. Every method's instruments are made once, when
/// the dispatcher is built, so a request costs a dictionary lookup, an atomic add and a histogram update; a
/// name nobody registered is counted as `(unknown)`, so callers cannot grow the label set.
final class RequestMetrics: Sendable {
    /// One method's instruments.
    struct Instruments: Sendable {
        let requests: Counter
        let latency: Timer
    }

    /// The latency histogram's name (guildd sets its buckets; see `Sources/guildd/Metrics.swift`).
    static let latencyLabel = "guild_request_duration_seconds"

    private let methods: [String: Instruments]
    private let unknown: Instruments
    private let errors = Mutex<[Int: Counter]>([:])

    init(methods names: [String]) {
        func instruments(_ method: String) -> Instruments {
            Instruments(
                requests: Counter(label: "guild_requests_total", dimensions: [("method", method)]),
                latency: Timer(label: Self.latencyLabel, dimensions: [("method", method)])
            )
        }
        var methods: [String: Instruments] = [:]
        for name in names { methods[name] = instruments(name) }
        self.methods = methods
        self.unknown = instruments("(unknown)")
    }

    /// The instruments of `method`: made when the dispatcher is built, and kept in its method table so that a
    /// request looks its method up once.
    func instruments(for method: String) -> Instruments {
        self.methods[method] ?? self.unknown
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
            let counter = Counter(label: "guild_request_errors_total", dimensions: [("code", String(code))])
            counters[code] = counter
            return counter
        }
    }
}

extension RequestMetrics {
    /// A monotonic timestamp in nanoseconds, to pass back to ``record(_:started:result:)``.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Counts one reply with a method's `instruments` (nil: a method nobody registered), timed from `started`
    /// (``now()``).
    func record(_ instruments: Instruments?, started: UInt64, result: Result<[UInt8], RPCError>) {
        let error: ErrorCode? =
            switch result {
            case .success: nil
            case .failure(let error): error.code
            }
        self.record(instruments ?? self.unknown, nanoseconds: Self.now() &- started, error: error)
    }
}
