import GuildCore

/// The users area: registration, login, tokens, identities, profiles and deletion (`user.*`).
struct UserArea: FeatureArea {
    let users: UserService

    func register(in registry: inout MethodRegistry) {
        registry.registerUserMethods(self.users)
    }
}
