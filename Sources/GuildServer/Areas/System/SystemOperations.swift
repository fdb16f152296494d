import Foundation
import GuildCore
import GuildProtocol

/// What the daemon gives the system area for operators: its metrics backend's exposition and the store's
/// online backup. Each is optional; an in-process test server has neither.
public struct SystemOperations: Sendable {
    /// The metrics backend's Prometheus text exposition (guildd bootstraps swift-prometheus); nil: none.
    public var exposition: (@Sendable () -> String)?
    /// Copies the live database to a new file at the path (absolute, not existing); returns its size in bytes.
    public var backup: (@Sendable (_ path: String) async throws -> Int64)?
    /// Whether the dispatcher measures requests (``RequestMetrics``): only when a backend collects them.
    public var measuresRequests: Bool

    /// Creates the operations.
    public init(
        exposition: (@Sendable () -> String)? = nil,
        backup: (@Sendable (_ path: String) async throws -> Int64)? = nil,
        measuresRequests: Bool = false
    ) {
        self.exposition = exposition
        self.backup = backup
        self.measuresRequests = measuresRequests
    }
}
