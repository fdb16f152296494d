import Foundation
import GuildClient
import GuildJSON
import GuildPostgres
import GuildProtocol
import GuildTestSupport
import PostgresNIO
import Synchronization
import Testing

/// Outages as an operator meets them, each with two guildd hosts on a PostgreSQL server of the test's own and load
/// running through both (``OutageLoad``: a writer per host sending group messages, a subscriber per host following
/// the group): PostgreSQL restarted with `pg_ctl restart -m fast`, PostgreSQL away for 10 s, a host killed with -9
/// mid-batch, and one host at its connection limit. After each: no acknowledged message lost, none stored twice,
/// every subscriber's events (resumed as often as it had to) exactly the group's events with no gap or repeat,
/// only documented errors while the database was away, and both hosts writing again by themselves once it is back
/// (the time it took is printed; its bound here only catches a hang).
@Suite(
    .enabled(if: TestPostgres.isConfigured, "needs PostgreSQL (scripts/test installs it)"),
    .timeLimit(.minutes(10))
)
struct PostgresOutageTests {
    /// The errors a write may meet while the database is away (protocol/errors.md).
    static let documentedOutageErrors: Set<String> = ["STORAGE_UNAVAILABLE", "WRITE_OUTCOME_UNKNOWN"]

    @Test func aFastRestartOfPostgreSQLUnderLoadLosesNothing() async throws {
        try await OutageLoad.run { load in
            try await load.waitForMessages(100)
            try await TestPostgres.blocking { try load.server.restartFast() }
            try await load.expectBothHostsWriteAgain(after: "pg_ctl restart -m fast")
        }
    }

    @Test func tenSecondsWithoutPostgreSQLAreClearErrorsThenServiceResumes() async throws {
        try await OutageLoad.run { load in
            try await load.waitForMessages(100)
            try await TestPostgres.blocking { try load.server.crash() }
            // Each host answers a write at once, with the documented error, while the database is away.
            for socket in load.sockets {
                let reason = try await load.probe(socket)
                #expect(reason == "STORAGE_UNAVAILABLE", "\(socket): \(reason ?? "written")")
            }
            try await Task.sleep(for: .seconds(10))
            for socket in load.sockets {
                #expect(try await load.probe(socket) == "STORAGE_UNAVAILABLE")
            }
            try await TestPostgres.blocking { try load.server.restart() }
            try await load.expectBothHostsWriteAgain(after: "10 s away")
        }
    }

    @Test func aHostKilledMidBatchLosesNothingItAcknowledged() async throws {
        try await OutageLoad.run { load in
            try await load.waitForMessages(100)
            // Its writer and subscriber go on through host A, as a client with two hosts to choose from would.
            load.hosts[1].signal(SIGKILL)
            _ = await load.hosts[1].wait()
            let before = load.acknowledgedCount
            try await load.waitForMessages(before + 100)
        }
    }

    @Test func aHostAtItsConnectionLimitAnswersClearlyAndRecovers() async throws {
        try await OutageLoad.run(hostBRole: "guild_b") { load in
            try await load.waitForMessages(100)
            // Host B's role may open no more connections, and the ones it has are ended: B reconnects into the
            // limit, as a host whose connections all broke at its limit would.
            try await load.admin(
                "ALTER ROLE guild_b CONNECTION LIMIT 0",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'guild_b'"
            )
            var reason: String?
            try await Eventually.until {
                reason = try await load.probe(load.sockets[1])
                return reason != nil
            }
            #expect(reason == "STORAGE_UNAVAILABLE", "host B at its limit: \(reason ?? "written")")
            // Host A is not disturbed.
            #expect(try await load.probe(load.sockets[0]) == nil)
            try await load.admin("ALTER ROLE guild_b CONNECTION LIMIT -1")
            try await load.expectBothHostsWriteAgain(after: "the connection limit lifted")
        }
    }
}

/// Two hosts on a server of a test's own, a Public group, a writer and a subscriber per host (each its own member
/// of the group), and what they saw.
final class OutageLoad: Sendable {
    let server: OwnPostgresServer
    let directory: String
    let hosts: [Child]
    let sockets: [String]
    private let tokens: [String]
    private let start: Int64
    private let stopping = Atomic<Bool>(false)
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Messages acknowledged, and those whose outcome the writer could not know (the reply lost with its
    /// connection, or `WRITE_OUTCOME_UNKNOWN`).
    private let acknowledged = Mutex<Set<String>>([])
    private let uncertain = Mutex<Set<String>>([])
    /// Each error reason a writer was answered with, and how often.
    private let errors = Mutex<[String: Int]>([:])
    /// Each subscriber's events' seqs, in the order received, and how many came again or out of order.
    private let received = Mutex<[[Int64]]>([[], []])
    private let repeated = Mutex<Int>(0)
    /// How often each subscriber subscribed again.
    private let resubscribed = Mutex<[Int]>([0, 0])

    private init(server: OwnPostgresServer, directory: String, hosts: [Child], sockets: [String], tokens: [String], start: Int64) {
        self.server = server
        self.directory = directory
        self.hosts = hosts
        self.sockets = sockets
        self.tokens = tokens
        self.start = start
    }

    var acknowledgedCount: Int { self.acknowledged.withLock { $0.count } }

    /// Starts the server, the hosts (B as `hostBRole` when given, a role of its own) and the load; runs `body`;
    /// stops the load and checks what every client saw (see ``PostgresOutageTests``).
    static func run(hostBRole: String? = nil, _ body: (OutageLoad) async throws -> Void) async throws {
        let server = try await TestPostgres.blocking { try OwnPostgresServer() }
        defer { server.remove() }
        let directory = "/tmp/gpx-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["--message-rate-per-user", "1000000"]
        let (socketA, hostA) = try await PostgresHostsEndToEndTests.host("a", url: server.url, in: directory, arguments: arguments)
        defer { hostA.terminate() }
        var urlB = server.url + "&application_name=guildd-b"
        if let role = hostBRole {
            try await Self.admin(
                server,
                "CREATE ROLE \(role) LOGIN",
                "GRANT pg_read_all_data, pg_write_all_data TO \(role)"
            )
            urlB = urlB.replacingOccurrences(of: "postgresql://postgres@", with: "postgresql://\(role)@")
        }
        let (socketB, hostB) = try await PostgresHostsEndToEndTests.host("b", url: urlB, in: directory, arguments: arguments)
        defer { hostB.terminate() }

        // The group, its owner, and four members: a writer and a subscriber per host.
        let owner = try await GuildClient.connect(path: socketA)
        _ = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        var members: [(id: String, token: String)] = []
        for index in 0..<4 {
            let client = try await GuildClient.connect(path: index % 2 == 0 ? socketA : socketB)
            let member = try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: "member \(index)"))
            members.append((member.user.userID, member.accessToken))
            await client.close()
        }
        _ = try await owner.call(
            "group.create",
            params: ["name": "Load", "groupID": "load", "type": "Public", "members": .array(members.map { .string($0.id) })]
        )
        let start = try await owner.subscribe(groupIDs: ["load"]).seq
        await owner.close()

        let load = OutageLoad(
            server: server,
            directory: directory,
            hosts: [hostA, hostB],
            sockets: [socketA, socketB],
            tokens: members.map(\.token),
            start: start
        )
        let tokens = members.map(\.token)
        load.tasks.withLock { tasks in
            for host in 0..<2 {
                tasks.append(Task { await load.write(prefix: "w\(host)", token: tokens[host * 2], from: host) })
                tasks.append(Task { await load.follow(subscriber: host, token: tokens[host * 2 + 1], from: host) })
            }
        }
        do {
            try await body(load)
            try await load.finish()
        } catch {
            load.cancel()
            throw error
        }
    }

    /// Writes messages through host `host` (the other when it cannot connect) until the load stops.
    private func write(prefix: String, token: String, from host: Int) async {
        var client: GuildClient?
        var count = 0
        var target = host
        while !self.stopping.load(ordering: .acquiring) {
            var text: String?
            do {
                if client == nil {
                    let connected = try await GuildClient.connect(path: self.sockets[target])
                    client = connected
                    _ = try await connected.call(SessionMethods.Authenticate.self, .init(accessToken: token))
                }
                count += 1
                text = "\(prefix)-\(count)"
                _ = try await client?.sendMessage(groupID: "load", text: text ?? "")
                self.acknowledged.withLock { _ = $0.insert(text ?? "") }
            } catch let error as RPCError {
                let reason = error.reason ?? "\(error.code)"
                self.errors.withLock { $0[reason, default: 0] += 1 }
                if reason == "WRITE_OUTCOME_UNKNOWN", let text { self.uncertain.withLock { _ = $0.insert(text) } }
                try? await Task.sleep(for: .milliseconds(20))
            } catch {
                // The connection is gone, maybe with the reply: the outcome is unknown.
                if let text { self.uncertain.withLock { _ = $0.insert(text) } }
                await client?.close()
                client = nil
                target = (target + 1) % 2
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        await client?.close()
    }

    /// Follows the group through host `host` (the other when it cannot connect), subscribing again after the last
    /// event received whenever the subscription ends, until cancelled.
    private func follow(subscriber: Int, token: String, from host: Int) async {
        var last = self.start
        var target = host
        while !Task.isCancelled {
            do {
                let client = try await GuildClient.connect(path: self.sockets[target])
                defer { Task { await client.close() } }
                _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: token))
                let subscription = try await client.subscribe(groupIDs: ["load"], since: last)
                for try await event in subscription.events {
                    guard event.seq > last else {
                        self.repeated.withLock { $0 += 1 }
                        continue
                    }
                    last = event.seq
                    self.received.withLock { $0[subscriber].append(event.seq) }
                }
            } catch {
                target = (target + 1) % 2
            }
            if Task.isCancelled { break }
            self.resubscribed.withLock { $0[subscriber] += 1 }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until `count` messages were acknowledged (60 s catches a hang).
    func waitForMessages(_ count: Int) async throws {
        try await Eventually.until { self.acknowledgedCount >= count }
        try #require(self.acknowledgedCount >= count, "\(self.acknowledgedCount) of \(count) messages acknowledged")
    }

    /// One message through `socket` on a connection of its own: nil when written, else the error's reason.
    func probe(_ socket: String) async throws -> String? {
        let client = try await GuildClient.connect(path: socket)
        defer { Task { await client.close() } }
        do {
            _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: self.tokens[0]))
            _ = try await client.sendMessage(groupID: "load", text: "probe-\(UUID().uuidString)")
            return nil
        } catch let error as RPCError {
            return error.reason ?? "\(error.code)"
        }
    }

    /// Waits until each host writes again, and prints how long that took.
    func expectBothHostsWriteAgain(after what: String) async throws {
        let back = ContinuousClock.now
        for (index, socket) in self.sockets.enumerated() {
            var reason: String? = "not tried"
            try await Eventually.until(every: .milliseconds(10)) {
                reason = try await self.probe(socket)
                return reason == nil
            }
            #expect(reason == nil, "host \(index) writes again")
            print("host \(index) wrote again \(ContinuousClock.now - back) after \(what)")
        }
        let before = self.acknowledgedCount
        try await self.waitForMessages(before + 50)
    }

    /// Runs statements as the server's superuser.
    func admin(_ statements: String...) async throws {
        try await Self.admin(self.server, statements)
    }

    private static func admin(_ server: OwnPostgresServer, _ statements: String...) async throws {
        try await Self.admin(server, statements)
    }

    private static func admin(_ server: OwnPostgresServer, _ statements: [String]) async throws {
        let location = try PostgresLocation(url: server.url)
        try await TestPostgres.blocking {
            let connection = try BlockingConnection(location, logger: TestPostgres.logger)
            defer { connection.close() }
            for statement in statements { try connection.execute(PostgresQuery(unsafeSQL: statement)) }
        }
    }

    private func cancel() {
        self.stopping.store(true, ordering: .releasing)
        for task in self.tasks.withLock({ $0 }) { task.cancel() }
    }

    /// Stops the writers, sends a last message, and once each subscriber has it checks what everyone saw.
    private func finish() async throws {
        self.stopping.store(true, ordering: .releasing)
        let tasks = self.tasks.withLock { $0 }
        for index in [0, 2] { await tasks[index].value }
        // The last message, through a live host, seen by a subscription of its own: its event's seq ends the run.
        let live = self.hosts[0].isRunning ? self.sockets[0] : self.sockets[1]
        let marker = try await GuildClient.connect(path: live)
        defer { Task { await marker.close() } }
        _ = try await marker.call(SessionMethods.Authenticate.self, .init(accessToken: self.tokens[0]))
        let watch = try await marker.subscribe(groupIDs: ["load"], kinds: ["newMessage"])
        _ = try await marker.sendMessage(groupID: "load", text: "end")
        var end: Int64 = 0
        for try await event in watch.events {
            end = event.seq
            break
        }
        try await Eventually.until { !self.received.withLock { $0.contains { ($0.last ?? 0) < end } } }
        for index in [1, 3] { tasks[index].cancel() }

        // Every acknowledged message is stored once; none is stored twice.
        var stored: [String: Int] = [:]
        var seq: Int64?
        while true {
            let page = try await marker.history(groupID: "load", seq: seq, direction: .older, count: 20)
            for message in page.messages { stored[message.text ?? "", default: 0] += 1 }
            guard !page.isFinished, let oldest = page.messages.last?.seq, oldest > 1 else { break }
            seq = oldest - 1
        }
        let acknowledged = self.acknowledged.withLock { $0 }
        let uncertain = self.uncertain.withLock { $0 }
        let lost = acknowledged.filter { stored[$0] == nil }
        #expect(lost.isEmpty, "acknowledged and lost: \(lost.sorted().prefix(10))")
        let twice = stored.filter { $0.value > 1 }.keys
        #expect(twice.isEmpty, "stored twice: \(twice.sorted().prefix(10))")
        let unexplained = stored.keys.filter {
            !acknowledged.contains($0) && !uncertain.contains($0) && !$0.hasPrefix("probe-") && $0 != "end"
        }
        #expect(unexplained.isEmpty, "stored though refused: \(unexplained.sorted().prefix(10))")
        let errors = self.errors.withLock { $0 }
        #expect(
            Set(errors.keys).isSubset(of: PostgresOutageTests.documentedOutageErrors),
            "\(errors); host A: \(self.hosts[0].stderrTail()); host B: \(self.hosts[1].stderrTail())"
        )

        // Each subscriber received exactly the group's events up to the end, once each, in order.
        #expect(self.repeated.withLock { $0 } == 0, "events received again or out of order")
        for subscriber in 0..<2 {
            let client = try await GuildClient.connect(path: live)
            defer { Task { await client.close() } }
            _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: self.tokens[subscriber * 2 + 1]))
            let replay = try await client.subscribe(groupIDs: ["load"], since: self.start)
            var expected: [Int64] = []
            for try await event in replay.events {
                expected.append(event.seq)
                if event.seq >= end { break }
            }
            let got = self.received.withLock { $0[subscriber] }.filter { $0 <= end }
            #expect(got == expected, "subscriber \(subscriber): \(got.count) events, the log holds \(expected.count)")
        }
        print(
            "outage load: \(acknowledged.count) acknowledged, \(uncertain.count) uncertain, errors \(errors), "
                + "resubscribed \(self.resubscribed.withLock { $0 })"
        )
    }
}
