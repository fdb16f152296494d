import GRDB

extension Database {
    /// Runs `body` in a read transaction (one snapshot), opened and closed with cached statements.
    ///
    /// GRDB's `read` does the same through a savepoint whose two statements it parses and prepares anew on each
    /// call; for reads of a few indexed lookups that preparation cost more than the lookups themselves.
    func inSnapshot<T>(_ body: (Database) throws -> T) throws -> T {
        try self.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        let result: T
        do {
            result = try body(self)
        } catch {
            try? self.cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
            throw error
        }
        try self.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        return result
    }
}
