import Foundation

/// This daemon among the hosts that share a store, as thing presence sees it: an id new with each run, and the
/// lease under which the things bound on it count as online for every host (see ``ThingService/setOnline(thingID:_:)``).
///
/// A live host renews its lease every ``renewalInterval``; a host whose lease has ended is taken for dead, and the
/// first other host to look removes its presence rows, its things going offline. So a host killed with -9 takes
/// its things offline within ``deadHostBound`` of its death on every other host (their clocks agreeing to well
/// within a lease).
public struct PresenceHost: Sendable, Hashable {
    /// The host's id: random, new with each run, so a restarted host never mistakes a past run's rows for its own.
    public var id: String
    /// What stays the same from one run of the host to the next (guildd: the machine's id, host name and socket path):
    /// a host starting under a name takes every past run with it for dead at once, without waiting for its
    /// lease to end. Empty for a host with no such name.
    public var name: String
    /// How long a renewal keeps the host alive, in ms.
    public var lease: Int64

    /// The default lease: 10 s.
    public static let defaultLease: Int64 = 10_000

    /// A host with a new random id.
    public init(id: String = UUID().uuidString.lowercased(), name: String = "", lease: Int64 = PresenceHost.defaultLease) {
        self.id = id
        self.name = name
        self.lease = max(lease, 5)
    }

    /// The clock of leases: the wall clock in ms since the Unix epoch, never a test's shifted clock of things (one
    /// host's shift would make the others take it for dead).
    public static func clock() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }

    /// How often the lease is renewed and dead hosts are looked for: a fifth of the lease, so four renewals in a
    /// row may fail (a slow database) before the lease ends.
    public var renewalInterval: Int64 { self.lease / 5 }

    /// The longest a dead host's things stay online: its last lease runs out, and another host looks one interval
    /// later at most, then waits one more interval when its own previous look failed.
    public var deadHostBound: Int64 { self.lease + 2 * self.renewalInterval }
}
