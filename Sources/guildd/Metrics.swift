import CoreMetrics
import Prometheus

/// guildd's metrics backend: swift-metrics over swift-prometheus, served as text by `system.metrics`.
enum DaemonMetrics {
    /// Bootstraps swift-metrics with a Prometheus registry (once per process) and returns its exposition.
    static func bootstrap() -> @Sendable () -> String {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Requests are answered in microseconds to milliseconds; commits take an fsync (about 0.1 to 10 ms).
        let latency: [Duration] = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
            .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5),
        ]
        factory.defaultDurationHistogramBuckets = latency
        factory.valueHistogramBuckets["guild_store_commit_operations"] = [1, 2, 4, 8, 16, 32, 64, 128, 256]
        MetricsSystem.bootstrap(factory)
        return { registry.emitToString() }
    }
}
