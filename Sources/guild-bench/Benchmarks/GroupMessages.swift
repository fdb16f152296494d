import Foundation
import GuildHarness
import GuildProtocol
import Synchronization

/// Group messages: a Public group of 1,000 members, each on its own connection subscribed to the group; 16
/// member connections send `group.sendMessage` (8 in flight each), so every message is one `newMessage`
/// notification to each of the 1,000 subscribers (the sender included). Then, on a second daemon: a
/// `group.history` page at random seqs of a group holding 1,000,000 messages (bulk-loaded into the database
/// while guildd is stopped, then read through the socket), and `group.unreadCounts` of a user in 1,000 groups.
///
/// Subscribers are read by ``FanOut``'s poll reader; latency is receive time minus the event's `time`, which
/// guildd takes when it starts the send, before the group commit and its fsync.
///
/// Each burst (6,400 messages) is answered as fast as it commits while the fan-out works through it behind: guildd
/// lets up to 16,384 committed events wait for the fan-out before it holds the writer back. Sustained, the send
/// rate can only be the fan-out's: notifications/s ÷ 1,000.
struct GroupMessages: Benchmark {
    let name = "group-messages"
    let summary =
        "group.sendMessage/s and newMessage notifications/s to a 1,000-member Public group; history page p99 on 1,000,000 messages; unread counts p99 in 1,000 groups"

    static let members = 1_000
    static let writers = 16
    static let inFlight = 8
    static let groupID = "messages"

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let perWriter = context.quick ? 50 : 400
        try raiseFileLimit(atLeast: Self.members + Self.writers + 256)
        // Members send more than Tencent's per-user default here: 16 senders stand for a busy group.
        let daemon = try await launchOwnDaemon(context, name: "messages", extraArguments: ["--message-rate-per-user", "2000"])
        var sendFigures: [Measurement] = []
        do {
            context.progress("  registering \(Self.members) members, creating the Public group, subscribing")
            let socketPath = daemon.socketPath
            let setup = try await onThread("messages-setup") { try Self.prepare(socketPath) }
            defer { for connection in setup.subscribers + setup.writers { connection.close() } }
            _ = try await Self.burst(setup, perWriter: 4)
            var sendRates: [Double] = []
            var notifyRates: [Double] = []
            var latencies: [Double] = []
            for run in 1...context.runs {
                let result = try await Self.burst(setup, perWriter: perWriter)
                sendRates.append(result.sendRate)
                notifyRates.append(result.notifyRate)
                latencies += result.latencies
                context.progress(
                    "  run \(run): \(result.messages) messages in \(Format.decimal(result.sendSeconds, digits: 2)) s = "
                        + "\(MeasurementUnit.perSecond.format(result.sendRate)); notifications "
                        + "\(MeasurementUnit.perSecond.format(result.notifyRate))"
                )
            }
            latencies.sort()
            let shape = "\(context.runs) bursts × \(perWriter * Self.writers) messages (16 senders × \(Self.inFlight) in flight) × 1,000 subscribers"
            sendFigures = [
                Measurement(
                    benchmark: self.name,
                    figure: "messages/s to a 1,000-member Public group",
                    value: Stats.median(sendRates),
                    unit: .perSecond,
                    target: .value(.atLeast, 5_000),
                    note: "median of " + Format.spread(sendRates, unit: .perSecond) + "; " + shape
                        + "; stored, seq'd, durable (FULL); a burst: sustained, sends follow the fan-out (notifications/s ÷ 1,000)"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "newMessage notifications/s",
                    value: Stats.median(notifyRates),
                    unit: .perSecond,
                    target: .value(.atLeast, 500_000),
                    note: "median of " + Format.spread(notifyRates, unit: .perSecond) + "; window = first send → last notification"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "message commit→delivery p50",
                    value: Stats.percentile(sorted: latencies, 50),
                    unit: .milliseconds,
                    target: nil,
                    note: "\(Format.grouped(Double(latencies.count))) notifications; receive time − message time"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "message commit→delivery p99",
                    value: Stats.percentile(sorted: latencies, 99),
                    unit: .milliseconds,
                    target: nil,
                    note: "max \(MeasurementUnit.milliseconds.format(latencies.last ?? .nan))"
                ),
            ]
            await daemon.stop()
            reportDaemonLogProblems(daemon, context)
        } catch {
            await daemon.stop()
            throw error
        }
        return sendFigures + (try await self.reads(context))
    }

    // MARK: - Sending

    struct Setup: Sendable {
        var subscribers: [LineConnection]
        var writers: [LineConnection]
    }

    /// Blocking: members registered and subscribed; the group created by an admin peer; writers bound to
    /// the first 16 members.
    static func prepare(_ socketPath: String) throws -> Setup {
        var subscribers: [LineConnection] = []
        for _ in 0..<Self.members { subscribers.append(try LineConnection(path: socketPath, capacity: 64 * 1024)) }
        let registered = try subscribers.callEach(UserMethods.RegisterPseudo.self) { .init(displayName: "member \($0)") }
        let admin = try LineConnection(path: socketPath)
        defer { admin.close() }
        let created = try admin.call(
            GroupMethods.Create.self,
            .init(
                name: "messages",
                groupID: Self.groupID,
                type: .public,
                members: registered.dropFirst().map { .init(userID: $0.user.userID) },
                owner: registered[0].user.userID
            )
        )
        guard created.group.memberCount == Self.members else {
            throw DaemonError("group.create made \(created.group.memberCount) members")
        }
        _ = try subscribers.callEach(EventMethods.Subscribe.self) { _ in .init(groupIDs: [Self.groupID]) }
        for connection in subscribers { connection.setNonBlocking() }
        var writers: [LineConnection] = []
        for index in 0..<Self.writers {
            let writer = try LineConnection(path: socketPath)
            _ = try writer.call(SessionMethods.Authenticate.self, .init(accessToken: registered[index].accessToken))
            writers.append(writer)
        }
        return Setup(subscribers: subscribers, writers: writers)
    }

    struct BurstResult: Sendable {
        var messages: Int
        var sendSeconds: Double
        var sendRate: Double
        var notifyRate: Double
        var latencies: [Double]
    }

    static func burst(_ setup: Setup, perWriter: Int) async throws -> BurstResult {
        let expectation = FanOut.Expectation()
        let subscribers = setup.subscribers
        let reader = Task { try await onThread("messages-reader") { try FanOut.read(subscribers, expectation: expectation) } }
        try await Task.sleep(for: .milliseconds(20))
        let start = monotonicNanos()
        let sent: Int
        do {
            sent = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, writer) in setup.writers.enumerated() {
                    group.addTask { try await onThread("messages-writer-\(index)") { try Self.send(writer, index: index, count: perWriter) } }
                }
                return try await group.reduce(0, +)
            }
        } catch {
            expectation.total.store(0, ordering: .releasing)
            _ = try? await reader.value
            throw error
        }
        let sendSeconds = Double(monotonicNanos() - start) / 1e9
        expectation.total.store(sent * Self.members, ordering: .releasing)
        let tally = try await reader.value
        guard tally.notifications == sent * Self.members, tally.outOfOrder == 0, tally.ended == 0 else {
            throw DaemonError(
                "group-messages: expected \(sent * Self.members) notifications, got \(tally.notifications) (\(tally.outOfOrder) out of order, \(tally.ended) ended); first unexpected: \(tally.firstUnexpected ?? "none")"
            )
        }
        let window = Double(tally.lastReceive - start) / 1e9
        return BurstResult(
            messages: sent,
            sendSeconds: sendSeconds,
            sendRate: Double(sent) / sendSeconds,
            notifyRate: Double(tally.notifications) / window,
            latencies: tally.latencies
        )
    }

    /// Blocking: `count` messages, `inFlight` at a time; how many were acknowledged.
    static func send(_ connection: LineConnection, index: Int, count: Int) throws -> Int {
        let success = Array(#""delivered":true"#.utf8)
        var sent = 0
        var acknowledged = 0
        func next() throws {
            let params = GroupMethods.SendMessage.Params(groupID: Self.groupID, text: "message \(index)-\(sent)")
            try connection.send(try RawRPC.request(GroupMethods.SendMessage.self, params, id: sent + 1))
            sent += 1
        }
        while sent < min(Self.inFlight, count) { try next() }
        while acknowledged < count {
            let reply = try connection.readLine()
            guard RawRPC.contains(reply, success) else { throw DaemonError("group.sendMessage failed: \(RawRPC.preview(reply))") }
            acknowledged += 1
            if sent < count { try next() }
        }
        return acknowledged
    }

    // MARK: - Reads: history on 1,000,000 messages, unread counts in 1,000 groups

    func reads(_ context: BenchContext) async throws -> [Measurement] {
        let total = context.quick ? 100_000 : 1_000_000
        var daemon = try await launchOwnDaemon(context, name: "history")
        let firstSocket = daemon.socketPath
        let prepared: (token: String, userID: String)
        do {
            prepared = try await onThread("history-setup") {
                let connection = try LineConnection(path: firstSocket)
                defer { connection.close() }
                let user = try connection.call(UserMethods.RegisterPseudo.self, .init(displayName: "reader"))
                let admin = try LineConnection(path: firstSocket)
                defer { admin.close() }
                _ = try admin.call(GroupMethods.Create.self, .init(name: "history", groupID: "history", type: .public, owner: user.user.userID))
                _ = try connection.call(GroupMethods.SendMessage.self, .init(groupID: "history", text: "first"))
                // 1,000 groups for the unread counts, created 200 in flight at a time.
                for chunk in stride(from: 0, to: 1_000, by: 200) {
                    for index in chunk..<(chunk + 200) {
                        try admin.send(GroupMethods.Create.self, .init(name: "u\(index)", groupID: "u\(index)", type: .work, owner: user.user.userID))
                    }
                    for _ in 0..<200 { _ = try RawRPC.decode(GroupMethods.Create.self, try admin.readLine()) }
                }
                return (user.accessToken, user.user.userID)
            }
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
        context.progress("  bulk-loading \(Format.grouped(Double(total))) messages into the stopped daemon's database")
        try await Self.bulkLoad(database: context.path("history.db"), groupID: "history", total: total)
        daemon = try await launchOwnDaemon(context, name: "history")
        do {
            let socketPath = daemon.socketPath
            let samples = context.quick ? 500 : 5_000
            let (history, unread) = try await onThread("history-reads") {
                let connection = try LineConnection(path: socketPath, capacity: 1024 * 1024)
                defer { connection.close() }
                _ = try connection.call(SessionMethods.Authenticate.self, .init(accessToken: prepared.token))
                var history: [Double] = []
                for _ in 0..<samples {
                    let seq = Int64.random(in: 1...Int64(total))
                    // The round trip, to the reply's last byte; the bench's own decoding comes after the clock.
                    let started = monotonicNanos()
                    try connection.send(GroupMethods.History.self, .init(groupID: "history", seq: seq, count: 20))
                    let reply = try connection.readLine()
                    history.append(Double(monotonicNanos() - started) / 1e6)
                    let page = try RawRPC.decode(GroupMethods.History.self, reply)
                    guard page.messages.first?.seq == seq else { throw DaemonError("group.history from \(seq) began elsewhere") }
                }
                var unread: [Double] = []
                for _ in 0..<(samples / 5) {
                    let started = monotonicNanos()
                    try connection.send(GroupMethods.UnreadCounts.self, .init())
                    let reply = try connection.readLine()
                    unread.append(Double(monotonicNanos() - started) / 1e6)
                    let counts = try RawRPC.decode(GroupMethods.UnreadCounts.self, reply)
                    guard counts.groups.count == 1_001 else { throw DaemonError("group.unreadCounts listed \(counts.groups.count) groups") }
                }
                return (history, unread)
            }
            await daemon.stop()
            reportDaemonLogProblems(daemon, context)
            return [
                Measurement(
                    benchmark: self.name,
                    figure: "history page p99, 1,000,000 messages",
                    value: Stats.percentile(history, 99),
                    unit: .milliseconds,
                    target: .value(.below, 2),
                    note: "\(samples) pages of 20 from random seqs of \(Format.grouped(Double(total))) messages, round trip on one connection; p50 "
                        + MeasurementUnit.milliseconds.format(Stats.percentile(history, 50))
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "unread counts p99, user in 1,000 groups",
                    value: Stats.percentile(unread, 99),
                    unit: .milliseconds,
                    target: .value(.below, 2),
                    note: "\(samples / 5) group.unreadCounts of all 1,001 groups, round trip to the reply's last byte; p50 "
                        + MeasurementUnit.milliseconds.format(Stats.percentile(unread, 50))
                ),
            ]
        } catch {
            await daemon.stop()
            throw error
        }
    }

    /// Adds messages 2...`total` to a group straight into the database with Python's sqlite3 (guildd stopped).
    static func bulkLoad(database: String, groupID: String, total: Int) async throws {
        let script = """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1]); g = sys.argv[2]; n = int(sys.argv[3]); now = int(time.time() * 1000)
            db.executemany(
                "INSERT INTO group_message (groupID, seq, msgID, sender, time, priority, body, eventSeq) VALUES (?, ?, ?, 'bulk', ?, 'Normal', ?, 0)",
                ((g, s, "%d-%d-bulk" % (s, now), now, ('{"text":"message %d"}' % s).encode()) for s in range(2, n + 1)))
            db.execute('UPDATE "group" SET messageSeq = ? WHERE id = ?', (n, g))
            db.commit()
            """
        let process = try await ChildProcesses.shared.launch(
            "/usr/bin/env",
            ["python3", "-c", script, database, groupID, String(total)],
            error: .file(database + ".bulk-load.err")
        )
        let status = await process.wait()
        await ChildProcesses.shared.stop(process, timeout: 0)
        guard status == 0 else {
            let errors = (try? String(contentsOfFile: database + ".bulk-load.err", encoding: .utf8)) ?? ""
            throw DaemonError("bulk load exited \(status): \(errors.suffix(500))")
        }
    }
}
