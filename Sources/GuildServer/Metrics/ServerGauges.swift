import CoreMetrics
import Foundation

/// The gauges `system.metrics` samples when it is called: figures the daemon already keeps, read at scrape time
/// rather than updated on every change.
enum ServerGauges {
    /// Records the current figures.
    static func update(connections: Int, subscriptions: Int, databaseBytes: Int64, databaseHeapBytes: Int64?) {
        Gauge(label: "guild_connections").record(connections)
        Gauge(label: "guild_connection_states").record(ConnectionState.live)
        Gauge(label: "guild_subscriptions").record(subscriptions)
        Gauge(label: "guild_database_bytes").record(databaseBytes)
        // The share of the daemon's resident memory that is the embedded engine's (page caches grow with the
        // pages read, up to their bound), so a rise in VmRSS can be told from a leak.
        if let databaseHeapBytes { Gauge(label: "guild_database_heap_bytes").record(databaseHeapBytes) }
    }

    /// The database file's size plus its write-ahead log's, in bytes (0 for an in-memory database).
    static func databaseBytes(_ path: String) -> Int64 {
        [path, path + "-wal"].reduce(Int64(0)) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber
            return total + (size?.int64Value ?? 0)
        }
    }
}
