import GuildCore
import GuildProtocol

/// What the feature areas are built from: the store, the domain services and the server's shared parts.
struct ServerServices: Sendable {
    var configuration: ServerConfiguration
    var store: any Store
    var users: UserService
    var groups: GroupService
    var objects: ObjectService
    var things: ThingService
    /// Which things are online (the dispatcher's binding observer; `thing.disable` unbinds through it).
    var thingPresence: ThingPresence
    var hub: EventHub
    var connections: ConnectionRegistry
    var writeStatistics: @Sendable () -> SystemStatus.Writes?
    var databaseStatus: @Sendable () -> SystemStatus.Database?
    var failpoints: (@Sendable (_ name: String, _ milliseconds: Int) throws -> Void)?
    var operations = SystemOperations()
}
