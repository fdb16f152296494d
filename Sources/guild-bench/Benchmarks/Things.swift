import Foundation
import Glibc
import GuildHarness
import GuildJSON
import GuildProtocol

/// Things on the real socket, on a daemon of its own, with 100 owners (pseudo users, each with an
/// installation and a subscription for `commandResult`) and 100 things (each onboarded by its owner,
/// connected with its own token and subscribed for `commandReceived`):
/// - a command's round trip, owner sends → thing receives → thing posts results → owner receives
///   `commandResult`, against `system.ping` on the owner's connection in the same run;
/// - commands per second through all 100 pairs at once, each owner keeping four commands in flight and each
///   thing answering every command it receives (a command counts when its `commandResult` reached its owner);
/// - durable `thing.putState` per second from the 100 things, one upload in flight each, beside SQLite's one
///   transaction per write.
struct Things: Benchmark {
    let name = "things"
    let summary = "command round trip vs ping, commands/s with 100 things and 100 owners, durable state uploads/s"

    static let pairs = 100
    static let window = 4

    /// One owner and its thing.
    struct Pair {
        let owner: LineConnection
        let thing: LineConnection
        let ownerID: String
        let thingID: String
    }

    func run(_ context: BenchContext) async throws -> [Measurement] {
        try raiseFileLimit(atLeast: 4 * Self.pairs + 256)
        return try await withOwnDaemon(context, name: "things") { daemon in try await self.measure(context, daemon) }
    }

    private func measure(_ context: BenchContext, _ daemon: Daemon) async throws -> [Measurement] {
        let socket = daemon.socketPath
        context.progress("  \(Self.pairs) owners with installations and \(Self.pairs) connected things")
        let pairs = try await onThread("things-setup") { try Self.connect(socket) }
        defer {
            for pair in pairs {
                pair.owner.close()
                pair.thing.close()
            }
        }

        let trips = context.quick ? 500 : 3_000
        context.progress("  \(trips) command round trips and \(trips) pings on one owner's connection, interleaved")
        let (roundTrips, pings) = try await onThread("things-latency") { try Self.roundTrips(pairs[0], count: trips) }
        func p(_ values: [Double], _ percentile: Double) -> Double { Stats.percentile(sorted: values, percentile) }

        context.progress("  commands through \(Self.pairs) pairs, \(Self.window) in flight per owner")
        var commandRates: [Double] = []
        for run in 0..<context.runs {
            let duration = context.duration
            commandRates.append(try await onThread("things-commands") { try Self.commandRate(pairs, duration: duration, run: run) })
        }

        context.progress("  durable thing.putState from \(Self.pairs) things vs SQLite")
        let baseline = try SQLiteBaseline(path: context.path("things-baseline.sqlite"), rows: Self.pairs)
        defer { try? baseline.close() }
        let things = pairs.map(\.thing)
        let thingIDs = pairs.map(\.thingID)
        var stateRates: [Double] = []
        var sqliteRates: [Double] = []
        for run in 0..<context.runs {
            let duration = context.duration
            stateRates.append(
                try await onThread("things-states") {
                    try PollingWriters.run(things, duration: duration, counter: run * 10_000_000) { index, counter in
                        let request =
                            #"{"jsonrpc":"2.0","id":\#(counter),"method":"thing.putState","params":{"thingID":"\#(thingIDs[index])","state":{"power":true,"temperature":\#(counter % 40),"n":\#(counter)}}}"#
                        return (Array(request.utf8) + [0x0A], Array(#""timestamp""#.utf8))
                    }
                }
            )
            sqliteRates.append(try await onThread("sqlite-baseline") { try baseline.measure(duration: duration) })
        }
        let memory = try daemon.memory()

        return [
            Measurement(
                benchmark: self.name,
                figure: "command round trip p50 (send → thing → results → commandResult)",
                value: p(roundTrips, 50),
                unit: .microseconds,
                baseline: p(pings, 50),
                baselineName: "system.ping, owner's connection",
                target: .ratio(.atMost, 3),
                note: "\(roundTrips.count) round trips, two durable commits each; p99 \(MeasurementUnit.microseconds.format(p(roundTrips, 99))) "
                    + "vs ping p99 \(MeasurementUnit.microseconds.format(p(pings, 99)))"
            ),
            Measurement(
                benchmark: self.name,
                figure: "floor of a round trip: two SQLite durable commits",
                value: 2e6 / Stats.median(sqliteRates),
                unit: .microseconds,
                baseline: p(pings, 50),
                baselineName: "system.ping, owner's connection",
                target: nil,
                note: "a round trip holds two writes, each answered after its own durable commit (SQLite WAL+FULL, 1 txn/INSERT, same run)"
            ),
            Measurement(
                benchmark: self.name,
                figure: "commands/s, \(Self.pairs) things and \(Self.pairs) owners",
                value: Stats.median(commandRates),
                unit: .perSecond,
                baseline: nil,
                baselineName: nil,
                target: .value(.atLeast, 10_000),
                note: "a command counts when its commandResult reached its owner; " + Format.spread(commandRates, unit: .perSecond)
            ),
            Measurement(
                benchmark: self.name,
                figure: "durable thing.putState/s, \(Self.pairs) things",
                value: Stats.median(stateRates),
                unit: .perSecond,
                baseline: Stats.median(sqliteRates),
                baselineName: "SQLite WAL+FULL, 1 txn/INSERT",
                target: .value(.atLeast, 20_000),
                note: "guild: " + Format.spread(stateRates, unit: .perSecond) + "; sqlite: " + Format.spread(sqliteRates, unit: .perSecond)
            ),
            .rss(benchmark: self.name, after: "the things run", memory),
        ]
    }

    // MARK: - Setup

    /// Registers the owners, onboards their things, and connects everything (blocking).
    static func connect(_ socket: String) throws -> [Pair] {
        var pairs: [Pair] = []
        for index in 0..<Self.pairs {
            let owner = try LineConnection(path: socket, capacity: 256 * 1024)
            let user = try owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner\(index)"))
            _ = try owner.call(InstallationMethods.Register.self, .init(deviceType: "ANDROID", installationRegistrationID: "bench-\(index)"))
            _ = try owner.call(EventMethods.Subscribe.self, .init(kinds: ["commandResult"]))
            let onboarded = try owner.call(
                ThingMethods.Onboard.self,
                .init(vendorThingID: "bench-\(index)", thingPassword: "pw", owner: "user:" + user.user.userID)
            )
            let thing = try LineConnection(path: socket, capacity: 256 * 1024)
            _ = try thing.call(SessionMethods.Authenticate.self, .init(accessToken: onboarded.accessToken))
            _ = try thing.call(EventMethods.Subscribe.self, .init(thingIDs: [onboarded.thingID], kinds: ["commandReceived"]))
            pairs.append(Pair(owner: owner, thing: thing, ownerID: user.user.userID, thingID: onboarded.thingID))
        }
        // The things' thingConnected events went to owners whose subscriptions filter them out; nothing is
        // waiting on any connection now.
        return pairs
    }

    /// A `command.send` line of `pair`'s owner.
    static func sendLine(_ pair: Pair, id: Int) -> [UInt8] {
        let text =
            #"{"jsonrpc":"2.0","id":\#(id),"method":"command.send","params":{"thingID":"\#(pair.thingID)","issuer":"user:\#(pair.ownerID)","schema":"SmartLight","schemaVersion":1,"actions":[{"turnPower":{"power":true}},{"setBrightness":{"brightness":\#(id % 100)}}]}}"#
        return Array(text.utf8) + [0x0A]
    }

    /// A `command.putResults` line of `pair`'s thing for `commandID`.
    static func resultsLine(_ pair: Pair, commandID: Substring, id: Int) -> [UInt8] {
        let text =
            #"{"jsonrpc":"2.0","id":\#(id),"method":"command.putResults","params":{"thingID":"\#(pair.thingID)","commandID":"\#(commandID)","actionResults":[{"turnPower":{"succeeded":true}},{"setBrightness":{"succeeded":true}}]}}"#
        return Array(text.utf8) + [0x0A]
    }

    /// The string after `"commandID":"` in a line.
    static func commandID(in line: UnsafeRawBufferPointer) -> Substring? {
        let key = Array(#""commandID":""#.utf8)
        guard let start = key.withUnsafeBytes({ RawRPC.find($0, in: line) }) else { return nil }
        let from = start + key.count
        guard let end = line[from...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return Substring(decoding: line[from..<end], as: UTF8.self)
    }

    static let notification = Array(#""method":"events.event""#.utf8)
    static let errorMember = Array(#""error":"#.utf8)

    // MARK: - Round trips

    /// Interleaved command round trips and pings on one pair (blocking); sorted µs.
    static func roundTrips(_ pair: Pair, count: Int) throws -> (trips: [Double], pings: [Double]) {
        var trips: [Double] = []
        var pings: [Double] = []
        for index in 0..<count {
            var start = monotonicNanos()
            try pair.owner.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"system.ping"}"#.utf8) + [0x0A])
            _ = try pair.owner.readLine()
            pings.append(Double(monotonicNanos() - start) / 1e3)

            start = monotonicNanos()
            try pair.owner.send(Self.sendLine(pair, id: index))
            let sent = try pair.owner.readLine()
            guard !RawRPC.contains(sent, Self.errorMember) else { throw DaemonError("command.send: \(RawRPC.preview(sent))") }
            let received = try pair.thing.readLine()
            guard let commandID = received.withUnsafeBytes({ Self.commandID(in: $0) }) else {
                throw DaemonError("the thing got \(RawRPC.preview(received))")
            }
            try pair.thing.send(Self.resultsLine(pair, commandID: commandID, id: index))
            let posted = try pair.thing.readLine()
            guard RawRPC.contains(posted, Array(#""DONE""#.utf8)) else { throw DaemonError("command.putResults: \(RawRPC.preview(posted))") }
            let result = try pair.owner.readLine()
            guard RawRPC.contains(result, Array(#""commandResult""#.utf8)) else { throw DaemonError("the owner got \(RawRPC.preview(result))") }
            trips.append(Double(monotonicNanos() - start) / 1e3)
        }
        return (trips.sorted(), pings.sorted())
    }

    // MARK: - Throughput

    /// Commands completed per second through every pair, for `duration` seconds (blocking, one polling thread).
    static func commandRate(_ pairs: [Pair], duration: Double, run: Int) throws -> Double {
        let connections = pairs.flatMap { [$0.owner, $0.thing] }
        for connection in connections { connection.setNonBlocking() }
        var descriptors = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var outstanding = [Int](repeating: 0, count: pairs.count)
        // Results posted whose replies have not come back: the run ends with none on any connection.
        var posted = 0
        var nextID = run * 100_000_000
        var completed = 0
        let begin = monotonicNanos()
        let deadline = begin + UInt64(duration * 1e9)
        func send(_ pair: Int) throws {
            nextID += 1
            outstanding[pair] += 1
            try pairs[pair].owner.send(Self.sendLine(pairs[pair], id: nextID))
        }
        for pair in pairs.indices { for _ in 0..<Self.window { try send(pair) } }
        var failure: String?
        while posted > 0 || outstanding.contains(where: { $0 > 0 }) {
            let ready = poll(&descriptors, nfds_t(descriptors.count), 10_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw DaemonError(ready == 0 ? "no progress within 10 s" : "poll failed: errno \(errno)") }
            let now = monotonicNanos()
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let pair = index / 2
                if index % 2 == 0 {
                    // The owner: replies to command.send, and commandResult notifications.
                    var results = 0
                    let open = try connections[index].drain { line in
                        if RawRPC.contains(line, Self.notification) {
                            results += 1
                        } else if RawRPC.contains(line, Self.errorMember) {
                            failure = "command.send: " + RawRPC.preview(line)
                        }
                    }
                    guard open else { throw DaemonError("guildd closed an owner's connection") }
                    completed += results
                    outstanding[pair] -= results
                    if now < deadline { for _ in 0..<results { try send(pair) } }
                } else {
                    // The thing: commandReceived notifications, answered at once, and replies to putResults.
                    var lines: [[UInt8]] = []
                    let open = try connections[index].drain { line in
                        if RawRPC.contains(line, Self.notification) {
                            if let commandID = Self.commandID(in: line) {
                                nextID += 1
                                lines.append(Self.resultsLine(pairs[pair], commandID: commandID, id: nextID))
                            }
                        } else {
                            posted -= 1
                            if RawRPC.contains(line, Self.errorMember) { failure = "command.putResults: " + RawRPC.preview(line) }
                        }
                    }
                    posted += lines.count
                    guard open else { throw DaemonError("guildd closed a thing's connection") }
                    if !lines.isEmpty { try connections[index].send(Array(lines.joined())) }
                }
            }
            if let failure { throw DaemonError(failure) }
        }
        return Double(completed) / (Double(monotonicNanos() - begin) / 1e9)
    }
}
