/// The IM groups area in SQLite: group profiles, mutes, join applications, attributes and dismissed ids
/// (v4 to v6, in ``Migrations``), read and written through `SQLiteTransaction+IMGroups.swift`.
struct IMGroupsStoreArea: SQLiteStoreArea {}
