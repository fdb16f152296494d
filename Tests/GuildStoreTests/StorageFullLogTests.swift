import GRDB
import GuildCore
import Testing

@testable import GuildStore

/// SQLite's disk-full error becomes STORAGE_FULL, logged once per burst, never once per failure.
struct StorageFullLogTests {
    static let full = DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full", sql: "COMMIT TRANSACTION")

    @Test func diskFullBecomesStorageFullAndOtherErrorsPassThrough() {
        let log = StorageFullLog()
        #expect(log.translate(Self.full) as? GuildError == GuildError(.storageFull, ""))
        let other = DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "UNIQUE constraint failed")
        #expect((log.translate(other) as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT)
        #expect(log.translate(GuildError(.userNotFound, "")) as? GuildError == GuildError(.userNotFound, ""))
    }

    @Test func oneLinePerBurst() async throws {
        let log = StorageFullLog(interval: .milliseconds(300))
        for _ in 0..<1_000 { _ = log.translate(Self.full) }
        #expect(log.linesLogged == 1)
        log.recovered()
        try await Task.sleep(for: .milliseconds(350))
        for _ in 0..<10 { _ = log.translate(Self.full) }
        #expect(log.linesLogged == 2)
    }
}
