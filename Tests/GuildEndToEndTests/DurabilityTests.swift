import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// kill -9 at an arbitrary moment loses no acknowledged write and leaves a sound database.
@Suite(.endToEnd)
struct DurabilityTests {
    @Test(arguments: [20, 150, 600])
    func killNineLosesNoAcknowledgedWrite(afterWrites threshold: Int) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        let acknowledged = Acknowledged()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    // A writer that starts after the kill has nothing to write.
                    guard let client = try? await GuildClient.connect(path: scratch.socket) else { return }
                    var counter = 0
                    while true {
                        counter += 1
                        let name = "w\(writer)-\(counter)"
                        do {
                            let result = try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: name))
                            acknowledged.writes.withLock { $0[result.user.userID] = name }
                            _ = try await client.call(UserMethods.Update.self, .init(fields: ["n": .int(Int64(counter))]))
                        } catch {
                            return  // the daemon died mid-call: that write was never acknowledged
                        }
                    }
                }
            }
            // Kill once enough writes are acknowledged, at a moment unrelated to any one of them.
            while acknowledged.writes.withLock({ $0.count }) < threshold {
                try await Task.sleep(for: .milliseconds(1))
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...3000)))
            daemon.signal(SIGKILL)
            try await group.waitForAll()
        }
        _ = await daemon.wait()
        let written = acknowledged.writes.withLock { $0 }
        #expect(written.count >= threshold)

        // A SQLite file must be sound after the kill (PostgreSQL's own recovery is its server's business).
        if !TestEngine.isPostgreSQL {
            let integrity = try await Child.run(
                "/usr/bin/env",
                [
                    "python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])",
                    scratch.database,
                ]
            )
            #expect(integrity.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(integrity.stderr)")
        }

        let restarted = try await RealDaemon.start(scratch)
        defer { restarted.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        var missing = 0
        for (userID, name) in written {
            let profile = try? await client.call(UserMethods.Get.self, .init(userID: userID))
            if profile?.displayName != name { missing += 1 }
        }
        #expect(missing == 0, "\(missing) of \(written.count) acknowledged writes lost")
        await client.close()
    }
}

/// The writes the daemon acknowledged, shared by the writer tasks.
private final class Acknowledged: Sendable {
    let writes = Mutex<[String: String]>([:])
}
