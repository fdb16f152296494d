import GuildCore

/// The sessions area: `session.*` methods (binding a token to the connection, logging out).
struct SessionArea: FeatureArea {
    let users: UserService

    func register(in registry: inout MethodRegistry) {
        registry.registerSessionMethods(self.users)
    }
}
