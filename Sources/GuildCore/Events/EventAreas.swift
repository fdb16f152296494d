import Synchronization

/// The event areas the daemon knows, by topic area: each registers its live audience rule here. A
/// subscription may name topics only of registered areas, and kinds only of their kinds.
public enum EventAreas {
    private static let registered = Mutex<[String: any EventAudience]>([
        GroupEventAudience().area: GroupEventAudience()
    ])

    /// Registers an area's audience rule (replacing one registered for the same area).
    public static func register(_ audience: any EventAudience) {
        self.registered.withLock { $0[audience.area] = audience }
    }

    /// The audience rule of `area`, nil when no such area is registered.
    public static func audience(for area: some StringProtocol) -> (any EventAudience)? {
        self.registered.withLock { $0[String(area)] }
    }

    /// The registered areas, sorted.
    public static var areas: [String] { self.registered.withLock { $0.keys.sorted() } }

    /// Every registered area's kinds, groups first, then by area.
    public static var kinds: [String] {
        self.registered.withLock { registered in
            let others = registered.keys.filter { $0 != GroupEventAudience.groupArea }.sorted()
            return ([GroupEventAudience.groupArea] + others).flatMap { registered[$0]?.kinds ?? [] }
        }
    }
}
