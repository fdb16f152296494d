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

/// A subscriber that resumes with its last `seq` receives every event committed before a crash exactly
/// once, across kill -9 and restart.
@Suite(.endToEnd)
struct EventResumeTests {
    final class Seen: Sendable {
        let events = Mutex<[GuildEvent]>([])
    }

    @Test func resumingEventsSurviveKillNineAndRestart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let owner = try await GuildClient.connect(path: scratch.socket)
        let auth = try await owner.call(UserMethods.Register.self, .init(username: "owner", password: "pass"))
        _ = try await owner.call(GroupMethods.Create.self, .init(name: "start", groupID: "g"))

        let seen = Seen()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await event in GuildClient.events(path: scratch.socket, accessToken: auth.accessToken, since: 0) {
                    seen.events.withLock { $0.append(event) }
                    if event.changes?["name"] == "last" { return }
                }
            }
            var acknowledged: [String] = []
            for index in 0..<200 {
                let name = "before-\(index)"
                _ = try await owner.call(GroupMethods.Rename.self, .init(groupID: "g", name: name))
                acknowledged.append(name)
            }
            // Crash in the middle of a stream of writes; some may be committed and not acknowledged.
            let crashWriter = try await GuildClient.connect(path: scratch.socket)
            _ = try await crashWriter.call(SessionMethods.Authenticate.self, .init(accessToken: auth.accessToken))
            let inFlight = Task {
                var done: [String] = []
                for index in 0..<10_000 {
                    guard (try? await crashWriter.call(GroupMethods.Rename.self, .init(groupID: "g", name: "crash-\(index)"))) != nil else { break }
                    done.append("crash-\(index)")
                }
                return done
            }
            try await Task.sleep(for: .milliseconds(150))
            daemon.signal(SIGKILL)
            _ = await daemon.wait()
            acknowledged += await inFlight.value
            await owner.close()

            daemon = try await RealDaemon.start(scratch)
            let again = try await GuildClient.connect(path: scratch.socket)
            _ = try await again.call(UserMethods.Login.self, .init(username: "owner", password: "pass"))
            for index in 0..<50 {
                let name = "after-\(index)"
                _ = try await again.call(GroupMethods.Rename.self, .init(groupID: "g", name: name))
                acknowledged.append(name)
            }
            _ = try await again.call(GroupMethods.Rename.self, .init(groupID: "g", name: "last"))
            try await group.next()
            group.cancelAll()

            let events = seen.events.withLock { $0 }
            let seqs = events.map(\.seq)
            #expect(seqs == Array(1...Int64(seqs.count)), "sequence numbers must arrive once each, in order, with no gap")
            let names = events.compactMap { $0.changes?["name"]?.stringValue }
            #expect(Set(acknowledged).isSubset(of: Set(names)), "acknowledged writes missing from the stream")
            #expect(names.count == Set(names).count, "an event was delivered twice")
            await again.close()
        }
    }
}
