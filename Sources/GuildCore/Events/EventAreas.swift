import Synchronization

/// The event areas the daemon knows, by topic area: their kinds, their events' members and who receives
/// them. A subscription may name topics only of known areas, and kinds only of their kinds.
public enum EventAreas {
    /// Every area that appends events, in the order the contract lists them. An area with events adds its
    /// line here; the wire's event type and schemas are generated from this list (`scripts/gen-contract`).
    public static let declared: [any EventAudience] = [GroupEventAudience(), ObjectEventAudience(), ThingEventAudience()]

    private static let registered = Mutex<[any EventAudience]>(declared)

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
