import GuildCore
import Logging

/// Keeps this host's presence lease (``PresenceHost``) while the server runs, where hosts share the store: renews
/// it every interval (recording the things bound here again when it had ended), then turns offline the things of
/// hosts whose lease has ended. Every interval, on any store, it tries again the bindings whose recording failed.
/// When the server stops, its things go offline for every host at once.
struct PresenceLeaseRunner: Sendable {
    let things: ThingService
    let presence: ThingPresence
    let logger: Logger

    /// Renews and reaps until cancelled, and tries again the bindings whose recording failed. A store only this
    /// process opens has no lease to renew (its start-up took every past run's things offline).
    func run() async {
        let shared = self.things.store.isSharedByHosts
        let interval = self.things.presenceHost.renewalInterval
        // Start-up gave the lease. Dead hosts are looked for only after two renewals in a row succeeded: after an
        // outage of the database, every host's lease may have ended, and each live host gets one interval to renew
        // its own before another takes it for dead.
        var renewedLast = true
        if shared {
            self.logger.info(
                "presence lease taken",
                metadata: [
                    "host": "\(self.things.presenceHost.id)",
                    "lease_ms": "\(self.things.presenceHost.lease)",
                    "dead_host_offline_within_ms": "\(self.things.presenceHost.deadHostBound)",
                ]
            )
        }
        while !Task.isCancelled {
            do { try await Task.sleep(for: .milliseconds(interval)) } catch { break }
            await self.presence.recordAgain()
            guard shared else { continue }
            do {
                let kept = try await self.things.renewPresence(bound: { [presence] in presence.boundThingIDs() })
                if !kept {
                    self.logger.warning("this host's presence lease had ended (it was taken for dead): its things are online again")
                }
                if renewedLast {
                    let reaped = try await self.things.reapDeadHosts()
                    if !reaped.isEmpty {
                        self.logger.notice("hosts taken for dead; their things went offline", metadata: ["hosts": "\(reaped)"])
                    }
                }
                renewedLast = true
            } catch {
                if renewedLast {
                    self.logger.warning("renewing this host's presence lease failed", metadata: ["error": "\(error)"])
                }
                renewedLast = false
            }
        }
    }

    /// This host's things go offline (the server stops).
    func stop() async {
        do {
            try await self.things.stopPresence()
        } catch {
            self.logger.warning("taking this host's things offline failed", metadata: ["error": "\(error)"])
        }
    }
}
