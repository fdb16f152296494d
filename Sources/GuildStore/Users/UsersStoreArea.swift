/// The users and sessions area in SQLite: the `user` and `token` tables (v1, in ``Migrations``), read and
/// written through `SQLiteTransaction+Users.swift`.
struct UsersStoreArea: SQLiteStoreArea {}
