import Foundation
import GuildStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The database file is 0600 and the directories the store creates 0700; an existing directory keeps its mode
/// unless it is Guild's own.
struct PrivateFilesTests {
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    @Test(arguments: [false, true])
    func databaseFilesAndCreatedDirectoriesArePrivate(ownsDirectory: Bool) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("guild-modes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/existing", withIntermediateDirectories: true)
        chmod(root + "/existing", 0o755)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Under the test process's umask (022 in CI, which without the fix gives 0755 and 0644; FileModeTests sets
        // it for guildd explicitly): changing it here would race the tests running in parallel.
        let store = try SQLiteStore(configuration: .init(path: root + "/new/deeper/guild.sqlite"))
        let owned = try SQLiteStore(configuration: .init(path: root + "/existing/guild.sqlite", ownsDirectory: ownsDirectory))
        defer {
            try? store.close()
            try? owned.close()
        }
        #expect(Self.mode(root + "/new") == 0o700)
        #expect(Self.mode(root + "/new/deeper") == 0o700)
        for file in ["guild.sqlite", "guild.sqlite-wal", "guild.sqlite-shm"] {
            #expect(Self.mode(root + "/new/deeper/" + file) == 0o600, "\(file)")
            #expect(Self.mode(root + "/existing/" + file) == 0o600, "\(file)")
        }
        #expect(Self.mode(root + "/existing") == (ownsDirectory ? 0o700 : 0o755))
    }
}
