extension SQLiteStore {
    /// Every feature area the store holds, in migration order. A new area adds its folder and one line here.
    public static let areas: [any SQLiteStoreArea] = [
        UsersStoreArea(),
        GroupsStoreArea(),
        IMGroupsStoreArea(),
        EventsStoreArea(),
        ObjectsStoreArea(),
        ThingsStoreArea(),
        StorageStoreArea(),
    ]
}
