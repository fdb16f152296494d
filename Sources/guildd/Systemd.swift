import CSystemd
import Foundation

/// The daemon's side of the systemd protocol: inherited sockets, readiness and watchdog notifications.
/// Every call is a no-op outside systemd (no `NOTIFY_SOCKET`, no `LISTEN_FDS`).
enum Systemd {
    /// The first listening socket passed by systemd (or `systemd-socket-activate`), if any.
    /// Clears `LISTEN_*` so children do not inherit them.
    static func listenDescriptor() -> Int32? {
        let count = sd_listen_fds(1)
        guard count > 0 else { return nil }
        return SD_LISTEN_FDS_START
    }

    /// Sends a state line (`READY=1`, `STATUS=...`, `STOPPING=1`, `WATCHDOG=1`) to the service manager.
    static func notify(_ state: String) {
        _ = sd_notify(0, state)
    }

    /// The watchdog interval systemd expects (from `WATCHDOG_USEC`), if enabled.
    static func watchdogInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds))
    }
}
