import GuildCore
import Synchronization

/// What a ``PostgresWriter`` has learned of each write site: whether its writes append events.
///
/// A site is quiet once ``quietAfter`` of its writes in a row have committed on the event lane without appending;
/// one append (on any lane) marks it as appending for good, so a site that appends only sometimes stays on the
/// event lane. The table holds one entry per call site in the program: bounded, however long the daemon runs.
final class PostgresWriteRoutes: Sendable {
    private enum Learned {
        /// Writes in a row without an append.
        case quietSoFar(Int)
        case appends
    }

    /// Writes in a row without an event before a site's writes go to the quiet lanes.
    static let quietAfter = 3

    private let sites = Mutex<[WriteSite: Learned]>([:])

    /// Whether writes from `site` go to a quiet lane.
    func isQuiet(_ site: WriteSite) -> Bool {
        self.sites.withLock { sites in
            if case .quietSoFar(let count) = sites[site], count >= Self.quietAfter { return true }
            return false
        }
    }

    /// A write from `site` appended (`appended`: on any lane, committed or not; the site appends for good), or
    /// committed on the event lane without appending (one more towards ``quietAfter``).
    func ran(_ site: WriteSite, appended: Bool) {
        self.sites.withLock { sites in
            switch (sites[site], appended) {
            case (.appends, _), (_, true): sites[site] = .appends
            case (.quietSoFar(let count), false): sites[site] = .quietSoFar(min(count + 1, Self.quietAfter))
            case (nil, false): sites[site] = .quietSoFar(1)
            }
        }
    }

    /// Sites learned so far, and how many of them are quiet.
    var counts: (sites: Int, quiet: Int) {
        self.sites.withLock { sites in
            let quiet = sites.values.count { if case .quietSoFar(let count) = $0 { count >= Self.quietAfter } else { false } }
            return (sites.count, quiet)
        }
    }
}
