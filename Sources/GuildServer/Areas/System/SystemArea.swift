/// The system area: `system.ping`, `system.status`, `system.health`, `rpc.discover`, and `debug.setFailpoint`
/// when failpoints are on. (`system.check` gathers every area's invariants; ``GuildServer`` registers it.)
struct SystemArea: FeatureArea {
    let services: ServerServices
    let started: ContinuousClock.Instant = .now

    init(_ services: ServerServices) {
        self.services = services
    }

    func register(in registry: inout MethodRegistry) {
        registry.registerSystemMethods(
            configuration: self.services.configuration,
            connections: self.services.connections,
            started: self.started,
            writes: self.services.writeStatistics,
            database: self.services.databaseStatus
        )
        registry.registerHealthMethod(events: self.services.store)
        registry.registerOperationsMethods(
            self.services.operations,
            store: self.services.store,
            configuration: self.services.configuration,
            connections: self.services.connections,
            hub: self.services.hub
        )
        if let failpoints = self.services.failpoints { registry.registerFailpointMethod(failpoints) }
    }
}
