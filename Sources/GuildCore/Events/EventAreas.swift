import Synchronization

/// The event areas the daemon knows, by topic area: each feature area registers its live audience rule here
/// when the server is built. A subscription may name topics only of registered areas, and kinds only of
/// their kinds.
public enum EventAreas {
    private static let registered = Mutex<[any EventAudience]>([])

    /// Registers an area's audience rule (replacing one registered for the same area, in its place).
    public static func register(_ audience: any EventAudience) {
        self.registered.withLock { registered in
            if let index = registered.firstIndex(where: { $0.area == audience.area }) {
                registered[index] = audience
            } else {
                registered.append(audience)
            }
        }
    }

    /// The audience rule of `area`, nil when no such area is registered.
    public static func audience(for area: some StringProtocol) -> (any EventAudience)? {
        self.registered.withLock { $0.first { $0.area == area } }
    }

    /// The registered areas, sorted.
    public static var areas: [String] { self.registered.withLock { $0.map(\.area).sorted() } }

    /// Every registered area's kinds, in registration order.
    public static var kinds: [String] {
        self.registered.withLock { $0.flatMap(\.kinds) }
    }
}
