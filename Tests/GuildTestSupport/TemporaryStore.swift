import Foundation
import GuildStore

/// A store in a fresh temporary directory, removed when the test ends.
public struct TemporaryStore: Sendable {
    /// The directory holding the database.
    public let directory: URL
    /// The open store.
    public let store: SQLiteStore

    /// Opens a store in a new directory under the temporary directory.
    public init() throws {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("guild-store-\(UUID().uuidString)")
        self.store = try SQLiteStore(configuration: .init(path: self.directory.appendingPathComponent("db/guild.sqlite").path))
    }

    /// Closes the store and deletes its directory.
    public func remove() {
        try? self.store.close()
        try? FileManager.default.removeItem(at: self.directory)
    }
}
