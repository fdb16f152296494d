import GuildCore

/// The IM groups area (Tencent Cloud IM): profiles, roles, joins, applications, mutes, attributes, messages.
struct IMGroupArea: FeatureArea {
    let groups: GroupService

    func register(in registry: inout MethodRegistry) {
        registry.registerIMGroupMethods(self.groups)
        registry.registerMessageMethods(self.groups)
    }
}
