import ArgumentParser
import Foundation
import GuildServer
import Logging

/// The daemon's file descriptor budget: every connection holds one.
enum Descriptors {
    /// Descriptors kept for everything that is not a connection: the database and its WAL and shared
    /// memory files per connection, the listening socket, event loops, standard streams, the runtime's reserve
    /// (`DescriptorReserve`).
    static let reserved = 64

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (systemd's default soft limit is 1024) and returns
    /// the soft limit now in force.
    static func raiseSoftLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    /// The connection limit that fits `descriptors`: the one asked for, which must fit (else guildd does not
    /// start), or the default 4096 lowered to fit, with a notice.
    static func connectionLimit(requested: Int?, descriptors: Int, logger: Logger) throws -> Int {
        let fitting = descriptors - Self.reserved - ServerConfiguration.defaultAdminConnectionReserve
        if let requested {
            guard requested >= 1 else { throw ValidationError("--max-connections must be at least 1") }
            guard requested <= fitting else {
                throw ValidationError(
                    "--max-connections \(requested) does not fit the descriptor limit (RLIMIT_NOFILE \(descriptors)): at most "
                        + "\(max(fitting, 0)); raise LimitNOFILE= or lower --max-connections"
                )
            }
            return requested
        }
        guard fitting < 4096 else { return 4096 }
        logger.notice(
            "lowering --max-connections to fit the descriptor limit",
            metadata: ["max-connections": "\(max(fitting, 1))", "RLIMIT_NOFILE": "\(descriptors)"]
        )
        return max(fitting, 1)
    }
}
