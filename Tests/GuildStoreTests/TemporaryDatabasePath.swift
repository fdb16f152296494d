import Foundation

/// Runs `body` with a database path in a fresh temporary directory, removed afterwards: for tests that build a
/// database with the migrations of an older version before opening it as a store.
func withTemporaryDatabasePath(_ prefix: String, _ body: (String) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(directory.appendingPathComponent("guild.sqlite").path)
}
