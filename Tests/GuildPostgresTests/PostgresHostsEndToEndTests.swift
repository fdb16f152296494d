import Foundation
import GuildClient
import GuildHarness
import GuildJSON
import GuildPostgres
import GuildProtocol
import GuildTestSupport
import Synchronization
import Testing

/// Real guildd processes on one PostgreSQL database, driven through their sockets: two hosts share users,
/// groups and events; a thing bound on either host is online for both, and a host killed with -9 takes its
/// things offline; a host killed mid-write loses nothing it acknowledged; a stopped database is a clear error,
/// not a hang, and the host recovers by itself; a wrong URL stops guildd with a plain message.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresHostsEndToEndTests {
    /// A guildd on `url`, on a socket of its own under `directory`.
    static func host(
        _ name: String,
        url: String,
        in directory: String,
        arguments: [String] = []
    ) async throws -> (socket: String, daemon: Child) {
        let socket = directory + "/\(name).sock"
        let daemon = try await Child(
            Build.guildd,
            ["--socket", socket, "--database", url, "--scrypt-log-n", "4", "--log-level", "warning"] + arguments
        )
        do {
            try await RealDaemon.waitUntilServing(socket) {
                guard daemon.isRunning else { throw DaemonError("guildd exited: \(daemon.stderrTail())") }
            }
        } catch {
            await daemon.stop()
            throw error
        }
        return (socket, daemon)
    }

    static func withDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = "/tmp/gph-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }

    @Test func twoHostsShareUsersAndGroupsAndEachHearsTheOthersWrites() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.withDirectory { directory in
                let (socketA, hostA) = try await Self.host("a", url: location.url, in: directory)
                let (socketB, hostB) = try await Self.host("b", url: location.url, in: directory)
                defer {
                    hostA.terminate()
                    hostB.terminate()
                }
                // Alice registers through A and logs in through B.
                let aliceA = try await GuildClient.connect(path: socketA)
                let registered = try await aliceA.call("user.register", params: ["username": "alice", "password": "correct horse"])
                let aliceID = try #require(registered["user"]?["userID"]?.stringValue)
                let aliceB = try await GuildClient.connect(path: socketB)
                let login = try await aliceB.call("user.login", params: ["username": "alice", "password": "correct horse"])
                #expect(login["user"]?["userID"]?.stringValue == aliceID)
                // system.status names the engine and the URL without secrets, and says the host is connected.
                let status = try await aliceB.call("system.status")
                #expect(status["database"]?["engine"]?.stringValue == "postgresql", "\(status)")
                #expect(status["database"]?["connected"] == .bool(true), "\(status)")
                #expect(status["databasePath"]?.stringValue == location.description)

                // Bob is on B and subscribed there; Alice makes a group with him through A.
                let bob = try await GuildClient.connect(path: socketB)
                let bobID = try #require(try await bob.call("user.registerPseudo", params: [:])["user"]?["userID"]?.stringValue)
                let live = try await bob.subscribe()
                _ = try await aliceA.call(
                    "group.create",
                    params: ["name": "Across", "groupID": "across", "type": "Public", "members": [.string(bobID)]]
                )
                _ = try await aliceA.call("group.setInfo", params: ["groupID": "across", "introduction": "hello from A"])
                var kinds: [String] = []
                var seqs: [Int64] = []
                for try await event in live.events {
                    kinds.append(event.kind)
                    seqs.append(event.seq)
                    if event.kind == "groupInfoChanged" { break }
                }
                #expect(kinds.first == "groupCreated" && kinds.contains("groupInfoChanged"), "\(kinds)")
                #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "in sequence order, once each")

                // A new subscriber on B replays what A wrote.
                let replayer = try await GuildClient.connect(path: socketB)
                _ = try await replayer.call("session.authenticate", params: ["accessToken": login["accessToken"] ?? .null])
                let replay = try await replayer.subscribe(since: 0)
                var replayed: [String] = []
                for try await event in replay.events {
                    replayed.append(event.kind)
                    if event.kind == "groupInfoChanged" { break }
                }
                #expect(replayed.first == "groupCreated")
                // Each host reads what the other wrote.
                let info = try await bob.call("group.getInfo", params: ["groupIDs": ["across"]])
                guard case .array(let groups)? = info["groups"] else {
                    Issue.record("group.getInfo: \(info)")
                    return
                }
                #expect(groups.first?["introduction"]?.stringValue == "hello from A", "\(info)")
            }
        }
    }

    /// The `thingConnected` and `thingDisconnected` events a subscription has delivered, in order, collected by a
    /// task of its own (cancelling a task that iterates a stream would end the stream).
    final class PresenceEvents: Sendable {
        private let kinds = Mutex<[String]>([])
        private let collecting = Mutex<Task<Void, any Error>?>(nil)

        /// Collects from `events` until ``stop()``.
        static func collecting(_ events: AsyncThrowingStream<GuildEvent, any Error>) -> PresenceEvents {
            let collected = PresenceEvents()
            let task = Task {
                for try await event in events where event.kind == "thingConnected" || event.kind == "thingDisconnected" {
                    collected.kinds.withLock { $0.append(event.kind) }
                }
            }
            collected.collecting.withLock { $0 = task }
            return collected
        }

        func stop() {
            self.collecting.withLock { $0?.cancel() }
        }

        /// The event after the `count` already seen, once it comes; nil when none comes within `seconds` (a
        /// bound that only catches a hang, or the window in which nothing may come).
        func next(after count: Int, within seconds: Double) async throws -> String? {
            let came = try await Eventually.until(timeout: .seconds(seconds)) { self.kinds.withLock { $0.count > count } }
            return came ? self.kinds.withLock { $0[count] } : nil
        }
    }

    @Test func aThingIsOnlineForEveryHostAndADeadHostsThingsGoOffline() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.withDirectory { directory in
                // A three-second lease: a dead host's things go offline within 4.2 s of its death (protocol/postgresql.md),
                // and a host starved for a second on a busy machine is not taken for dead.
                let lease = ["--presence-lease", "3"]
                let (socketA, hostA) = try await Self.host("a", url: location.url, in: directory, arguments: lease)
                let (socketB, hostB) = try await Self.host("b", url: location.url, in: directory, arguments: lease)
                defer {
                    hostA.terminate()
                    hostB.terminate()
                }
                let owner = try await GuildClient.connect(path: socketA)
                let pseudo = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
                let lamp = try await owner.onboardThing(vendorThingID: "lamp-hosts", password: "pw", owner: "user:" + pseudo.user.userID)
                let events = PresenceEvents.collecting(try await owner.subscribe().events)
                defer { events.stop() }
                var seen = 0
                func next(within seconds: Double) async throws -> String? {
                    let kind = try await events.next(after: seen, within: seconds)
                    if kind != nil { seen += 1 }
                    return kind
                }

                // Bound on B: online for A's owner, who hears of it once.
                let onB = try await ThingAgent.connect(path: socketB, thingID: lamp.thingID, accessToken: lamp.accessToken)
                #expect(try await next(within: 60) == "thingConnected")
                #expect(try await owner.thing(lamp.thingID).online)
                // Bound on A too (answered once recorded), then B lets go: still online, and nobody is told anything
                // (watched for 2 s).
                let onA = try await ThingAgent.connect(path: socketA, thingID: lamp.thingID, accessToken: lamp.accessToken)
                await onB.close()
                #expect(try await next(within: 2) == nil)
                #expect(try await owner.thing(lamp.thingID).online)
                // A lets go: offline, once.
                await onA.close()
                #expect(try await next(within: 60) == "thingDisconnected")
                #expect(try await owner.thing(lamp.thingID).online == false)

                // Bound on B again, and B is killed: A takes B for dead once its lease ends, and the lamp goes offline.
                let again = try await ThingAgent.connect(path: socketB, thingID: lamp.thingID, accessToken: lamp.accessToken)
                #expect(try await next(within: 60) == "thingConnected")
                let killed = ContinuousClock.now
                hostB.signal(SIGKILL)
                // The bound only catches a hang: the lease's own is 4.2 s.
                #expect(try await next(within: 60) == "thingDisconnected")
                print("a killed host's thing went offline after \(ContinuousClock.now - killed) (lease 3 s)")
                #expect(try await owner.thing(lamp.thingID).online == false)
                #expect(try await next(within: 2) == nil, "told once")
                await again.close()

                // A new run of B: bound there, then B stops gracefully, taking the lamp offline as it goes.
                let (socketB2, hostB2) = try await Self.host("b2", url: location.url, in: directory, arguments: lease)
                defer { hostB2.terminate() }
                let onB2 = try await ThingAgent.connect(path: socketB2, thingID: lamp.thingID, accessToken: lamp.accessToken)
                #expect(try await next(within: 60) == "thingConnected")
                hostB2.terminate()
                #expect(try await next(within: 60) == "thingDisconnected")
                #expect(try await owner.thing(lamp.thingID).online == false)
                await onB2.close()
            }
        }
    }

    @Test func aHostKilledMidWriteLosesNothingItAcknowledged() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.withDirectory { directory in
                let (socketA, hostA) = try await Self.host("a", url: location.url, in: directory)
                let (socketB, hostB) = try await Self.host("b", url: location.url, in: directory)
                defer { hostB.terminate() }
                let writer = try await GuildClient.connect(path: socketA)
                let acknowledged = Mutex<[String]>([])
                let writing = Task {
                    while !Task.isCancelled {
                        guard let id = try? await writer.call("user.registerPseudo", params: [:])["user"]?["userID"]?.stringValue else {
                            return
                        }
                        acknowledged.withLock { $0.append(id) }
                    }
                }
                try await Task.sleep(for: .milliseconds(400))
                hostA.signal(SIGKILL)
                _ = await writing.value
                let ids = acknowledged.withLock { $0 }
                #expect(ids.count > 0)
                let reader = try await GuildClient.connect(path: socketB)
                for id in ids {
                    let user = try await reader.call("user.get", params: ["userID": .string(id)])
                    #expect(user["userID"]?.stringValue == id)
                }
            }
        }
    }

    @Test func aStoppedDatabaseIsAClearErrorAndTheHostRecoversWhenItReturns() async throws {
        let server = try await TestPostgres.blocking { try OwnPostgresServer() }
        defer { server.remove() }
        try await Self.withDirectory { directory in
            let (socket, host) = try await Self.host("a", url: server.url, in: directory)
            defer { host.terminate() }
            let client = try await GuildClient.connect(path: socket)
            _ = try await client.call("user.registerPseudo", params: [:])
            try await TestPostgres.blocking { try server.crash() }
            let started = ContinuousClock.now
            do {
                _ = try await client.call("user.registerPseudo", params: [:])
                Issue.record("a write with the database stopped succeeded")
            } catch let error as RPCError {
                #expect(error.reason == "STORAGE_UNAVAILABLE", "\(error)")
            }
            // Answered, not hung: the bound only catches a hang (a busy machine takes longer than an idle one).
            #expect(ContinuousClock.now - started < .seconds(60), "answered, not hung")
            let down = try await client.call("system.status")
            #expect(down["database"]?["connected"] == .bool(false), "\(down)")
            try await TestPostgres.blocking { try server.restart() }
            let recovered = try await Eventually.until(timeout: .seconds(20), every: .milliseconds(100)) {
                (try? await client.call("user.registerPseudo", params: [:])) != nil
            }
            #expect(recovered, "the host writes again once the database is back, with no restart")
            #expect(try await client.call("system.status")["database"]?["connected"] == .bool(true))
        }
    }

    @Test func aWrongDatabaseURLStopsGuilddWithAPlainMessage() async throws {
        var location = try PostgresLocation(url: TestPostgres.url ?? "")
        location.database = "no_such_guild_database"
        try await Self.withDirectory { directory in
            let daemon = try await Child(Build.guildd, ["--socket", directory + "/a.sock", "--database", location.url])
            let status = await daemon.wait()
            #expect(status != nil && status != 0)
            #expect(daemon.stderrTail().contains("no database no_such_guild_database"), "\(daemon.stderrTail())")
        }
    }
}
