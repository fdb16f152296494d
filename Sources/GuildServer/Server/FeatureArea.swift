import GuildCore

/// One feature area of the daemon (system, users and sessions, groups, IM groups, events, ...): the methods it
/// serves, registered in the manner of a Hummingbird route collection, and the checks it adds to
/// `system.check`. Each area lives in `Sources/GuildServer/Areas/<Area>/` and is listed once, in
/// ``GuildServer/areas(_:)``.
protocol FeatureArea: Sendable {
    /// Registers the area's methods.
    func register(in registry: inout MethodRegistry)
    /// The area's invariant checks, run by `system.check`: each returns a description of every violation.
    var invariantChecks: [@Sendable () async throws -> [String]] { get }
}

extension FeatureArea {
    var invariantChecks: [@Sendable () async throws -> [String]] { [] }
}
