/// Reading the daemon's metrics: `system.metrics` returns them as Prometheus text (exposition format 0.0.4).
public enum MetricsText: Sendable {
    /// Sums the samples of Prometheus text by metric name, labels dropped: a counter's total over its label sets
    /// (`guild_requests_total` over every method), or a histogram's `_sum` and `_count`. Comment lines and lines
    /// without a number are skipped.
    public static func sums(_ text: String) -> [String: Double] {
        var sums: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            let name = series.firstIndex(of: "{").map { series[..<$0] } ?? series
            sums[String(name), default: 0] += value
        }
        return sums
    }

    /// Each sample of Prometheus text by its series as written, labels included
    /// (`guild_wal_checkpoints_total{mode="restart"}`, `guild_events_pruned_total`). Comment lines and lines
    /// without a number are skipped.
    public static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
