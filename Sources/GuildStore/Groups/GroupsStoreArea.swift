/// The groups area in SQLite: `group`, `membership`, and `membership_history`, `event_subject` and
/// `event_excluded`, which say who may replay a group's events (``GroupSQLiteEventArea``).
struct GroupsStoreArea: SQLiteStoreArea {
    var eventArea: (any SQLiteEventArea)? { GroupSQLiteEventArea() }
}
