import GRDB

extension Database {
    /// Runs `body` in a read transaction (one snapshot), opened and closed with cached statements.
    ///
    /// For the immediate readers (`SQLiteImmediateReader`), which run on the calling thread and are never
    /// cancelled: `DatabaseQueue.read` does the same through a savepoint whose two statements it parses and
    /// prepares anew on each call, which cost more than a point read's lookups. However `body` or the commit
    /// fails, the transaction is rolled back (with GRDB's `rollback`), so the connection is never left inside a
    /// transaction. Reads on the pool keep GRDB's `read`, which also leaves its transaction when a task is
    /// cancelled (executing statements of our own then fails).
    func inSnapshot<T>(_ body: (Database) throws -> T) throws -> T {
        try self.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        do {
            let result = try body(self)
            try self.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            if self.isInsideTransaction { try? self.rollback() }
            throw error
        }
    }
}
