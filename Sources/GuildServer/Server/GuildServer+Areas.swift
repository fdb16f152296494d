import GuildCore

extension GuildServer {
    /// Every feature area the daemon serves, in registration order. A new area adds its folders and one line
    /// here.
    static func areas(_ services: ServerServices) -> [any FeatureArea] {
        [
            SystemArea(services),
            SessionArea(users: services.users),
            UserArea(users: services.users),
            GroupArea(groups: services.groups, store: services.store),
            IMGroupArea(groups: services.groups),
            ObjectArea(objects: services.objects),
            ThingArea(things: services.things, presence: services.thingPresence, hub: services.hub),
            EventArea(hub: services.hub),
            StorageUsageArea(store: services.store, quota: services.configuration.storageQuota),
            ConformanceArea(),
        ]
    }
}
