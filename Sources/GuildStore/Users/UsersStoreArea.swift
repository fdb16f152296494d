/// The users and sessions area in SQLite: the `user` and `token` tables (v1, in ``Migrations``), read and
/// written through `SQLiteUserRecords`.
struct UsersStoreArea: SQLiteStoreArea {}
