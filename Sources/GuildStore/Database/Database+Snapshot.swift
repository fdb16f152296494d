import GRDB

extension Database {
    /// Runs `body` in a read transaction (one snapshot), opened and closed with cached statements.
    ///
    /// GRDB's `read` does the same through a savepoint whose two statements it parses and prepares anew on each
    /// call; for reads of a few indexed lookups that preparation cost more than the lookups themselves. However
    /// `body` or the commit fails (a cancelled task's read is interrupted, for one), the transaction is rolled
    /// back: a reader connection is never handed back inside a transaction, where it would pin an old snapshot
    /// and refuse every later read.
    func inSnapshot<T>(_ body: (Database) throws -> T) throws -> T {
        try self.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        do {
            let result = try body(self)
            try self.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            if self.isInsideTransaction { try? self.execute(sql: "ROLLBACK TRANSACTION") }
            throw error
        }
    }
}
