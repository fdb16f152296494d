import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// With the default `--database` and umask 022, the state directory is 0700 and the database files 0600 (before the fix:
/// they were 0755 and 0644, and any local user could copy the password hashes).
@Suite(.endToEnd)
struct FileModeTests {
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Starts guildd under umask 022 with `environment`, makes it write, and returns the database path's modes.
    static func modes(environment: [String: String], database: String, directory: String) async throws -> [String: mode_t?] {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await Child(
            "/bin/sh",
            [
                "-c", "umask 022; exec env -u STATE_DIRECTORY \"$0\" \"$@\"", Build.guildd, "--socket", scratch.socket,
                "--scrypt-log-n", "4", "--log-level", "warning",
            ],
            environment: environment
        )
        defer { daemon.terminate() }
        try await RealDaemon.waitUntilServing(scratch.socket)
        let client = try await GuildClient.connect(path: scratch.socket)
        _ = try await client.call("user.registerPseudo", params: ["displayName": "x"])
        let modes = [
            "directory": Self.mode(directory), "main": Self.mode(database), "wal": Self.mode(database + "-wal"),
            "shm": Self.mode(database + "-shm"),
        ]
        await client.close()
        return modes
    }

    @Test func defaultDatabaseUnderXDGStateHomeIsPrivate() async throws {
        let home = try Scratch()
        defer { home.remove() }
        let state = home.path + "/state"
        let modes = try await Self.modes(
            environment: ["XDG_STATE_HOME": state, "HOME": home.path],
            database: state + "/guild/guild.sqlite",
            directory: state + "/guild"
        )
        #expect(modes == ["directory": 0o700, "main": 0o600, "wal": 0o600, "shm": 0o600])
    }

    @Test func defaultDatabaseUnderHomeIsPrivate() async throws {
        let home = try Scratch()
        defer { home.remove() }
        // `Child` merges its environment into ours: say "empty" for XDG_STATE_HOME, which guildd treats as unset.
        let modes = try await Self.modes(
            environment: ["XDG_STATE_HOME": "", "HOME": home.path],
            database: home.path + "/.local/state/guild/guild.sqlite",
            directory: home.path + "/.local/state/guild"
        )
        #expect(modes == ["directory": 0o700, "main": 0o600, "wal": 0o600, "shm": 0o600])
        #expect(Self.mode(home.path + "/.local/state") == 0o700)
        #expect(Self.mode(home.path) == 0o755, "a directory guildd did not create keeps its mode")
    }

    @Test func anExistingWorldReadableDatabaseBecomesPrivate() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try await RealDaemon.start(scratch)
        first.signal(SIGTERM)
        _ = await first.wait()
        chmod(scratch.database, 0o644)
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        _ = try await client.call("user.registerPseudo", params: [:])
        await client.close()
        #expect(Self.mode(scratch.database) == 0o600)
        #expect(Self.mode(scratch.database + "-wal") == 0o600)
        #expect(Self.mode(scratch.database + "-shm") == 0o600)
        #expect(Self.mode(scratch.path) == 0o755, "guildd did not create the directory, so it keeps its mode")
    }
}
