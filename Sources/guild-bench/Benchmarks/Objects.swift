import Foundation
import Glibc
import GuildHarness
import GuildJSON
import GuildProtocol

/// Objects on the real socket, on a daemon of its own: `object.get` with an ACL check through a group subject
/// (a member of a 1,000-member group, from an unprivileged process: admins skip ACLs) against `system.ping`
/// on the same connection; durable `object.create` from 16 clients against SQLite's one transaction per write,
/// with its floor (the same creates straight into a store in the bench's process, ``StoreFloor``);
/// `object.query` first pages (eq on a top-level field, 50 results) over a bucket of 100,000 objects; a full
/// paged walk of that bucket; and the daemon's RSS after it all.
struct Objects: Benchmark {
    let name = "objects"
    let summary = "object.get through a group ACL vs ping, durable object.create vs SQLite, queries over 100,000 objects"

    static let members = 1_000
    static let writers = 16
    static let groupID = "objbench"

    func run(_ context: BenchContext) async throws -> [Measurement] {
        chmod(context.workDir, 0o711)
        return try await withOwnDaemon(context, name: "objects", extraArguments: ["--socket-mode", "0666"]) { daemon in
            try await self.measure(context, daemon)
        }
    }

    private func measure(_ context: BenchContext, _ daemon: Daemon) async throws -> [Measurement] {
        let socket = daemon.socketPath
        let calls = context.quick ? 2_000 : 10_000
        let bigBucket = context.quick ? 20_000 : 100_000

        // A group of 1,000 pseudo users, and an object in its scope made by an admin (no creator: only the
        // group's entry lets members read it).
        context.progress("  \(Self.members) members, a group and an object in its scope")
        let reader: (id: String, token: String) = try await onThread("objects-setup") {
            let registrar = try LineConnection(path: socket, capacity: 256 * 1024)
            defer { registrar.close() }
            // In chunks below the daemon's 256 requests in flight per connection, each chunk in few commits.
            var users: [UserMethods.RegisterPseudo.Result] = []
            for chunk in stride(from: 0, to: Self.members, by: 200) {
                let count = min(200, Self.members - chunk)
                for index in 0..<count { try registrar.send(UserMethods.RegisterPseudo.self, .init(displayName: "m\(chunk + index)")) }
                for _ in 0..<count { users.append(try RawRPC.decode(UserMethods.RegisterPseudo.self, try registrar.readLine())) }
            }
            let admin = try LineConnection(path: socket)
            defer { admin.close() }
            let created = try admin.call(
                GroupMethods.Create.self,
                .init(name: "objects", groupID: Self.groupID, members: users.map { .init(userID: $0.user.userID) }, owner: users[0].user.userID)
            )
            guard created.group.memberCount == Self.members else { throw DaemonError("the group has \(created.group.memberCount) members") }
            _ = try admin.call(
                ObjectMethods.Create.self,
                .init(scope: "group:" + Self.groupID, bucket: "shared", body: ["title": "read through the group"], objectID: "o1")
            )
            let member = users[Self.members / 2]
            return (member.user.userID, member.accessToken)
        }

        context.progress("  \(calls) object.get and \(calls) system.ping round trips from uid \(Hostile.uid), interleaved")
        let samples = try await Self.readAsUnprivileged(context, socket: socket, token: reader.token, calls: calls)
        func p(_ values: [Double], _ percentile: Double) -> Double { Stats.percentile(sorted: values, percentile) }

        // Durable creates: 16 connections, one call in flight each, against SQLite one transaction per write.
        context.progress("  durable object.create from \(Self.writers) clients vs SQLite")
        let baseline = try SQLiteBaseline(path: context.path("objects-baseline.sqlite"), rows: Self.writers)
        defer { try? baseline.close() }
        let writers = try (0..<Self.writers).map { _ in try LineConnection(path: socket) }
        defer { for connection in writers { connection.close() } }
        let floor = try StoreFloor(path: context.path("objects-floor.sqlite"))
        defer { try? floor.close() }
        var createRates: [Double] = []
        var sqliteRates: [Double] = []
        var floorRates: [Double] = []
        for run in 0..<context.runs {
            let duration = context.duration
            createRates.append(
                try await onThread("object-writers") {
                    try PollingWriters.run(writers, duration: duration, counter: run * 10_000_000) { _, counter in
                        let request =
                            #"{"jsonrpc":"2.0","id":\#(counter),"method":"object.create","params":{"scope":"app","bucket":"writes","body":{"n":\#(counter)}}}"#
                        return (Array(request.utf8) + [0x0A], Array(#""version":"1""#.utf8))
                    }
                }
            )
            sqliteRates.append(try await onThread("sqlite-baseline") { try baseline.measure(duration: duration) })
            floorRates.append(try await floor.measure(tasks: Self.writers, duration: duration))
        }

        // A bucket of 100,000 objects: 2,000 tags of 50 objects each.
        context.progress("  filling a bucket with \(bigBucket) objects")
        let tags = bigBucket / 50
        _ = try await onThread("object-fill") {
            try PollingWriters.run(writers, duration: .infinity, counter: 0, limit: bigBucket) { _, counter in
                let request =
                    #"{"jsonrpc":"2.0","id":\#(counter),"method":"object.create","params":{"scope":"app","bucket":"big","body":{"i":\#(counter),"tag":"t\#(counter % tags)","text":"object number \#(counter)"}}}"#
                return (Array(request.utf8) + [0x0A], Array(#""version":"1""#.utf8))
            }
        }
        let (queryTimes, walkRate, walked): ([Double], Double, Int) = try await onThread("object-queries") {
            let connection = try LineConnection(path: socket, capacity: 1 << 20)
            defer { connection.close() }
            var times: [Double] = []
            for index in 0..<(context.quick ? 300 : 1_000) {
                let start = monotonicNanos()
                let page = try connection.call(
                    ObjectMethods.Query.self,
                    .init(scope: "app", bucket: "big", clause: ["type": "eq", "field": "tag", "value": .string("t\((index * 7) % tags)")], limit: 50)
                )
                times.append(Double(monotonicNanos() - start) / 1e6)
                guard page.results.count == 50 else { throw DaemonError("an eq page held \(page.results.count) objects, not 50") }
            }
            times.sort()
            var key: String?
            var seen = 0
            let start = monotonicNanos()
            repeat {
                let page = try connection.call(
                    ObjectMethods.Query.self,
                    .init(scope: "app", bucket: "big", limit: ObjectMethodsLimit.page, paginationKey: key)
                )
                seen += page.results.count
                key = page.nextPaginationKey
            } while key != nil
            let rate = Double(seen) / (Double(monotonicNanos() - start) / 1e9)
            guard seen == bigBucket else { throw DaemonError("the walk saw \(seen) objects, not \(bigBucket)") }
            return (times, rate, seen)
        }
        let memory = try daemon.memory()

        return [
            Measurement(
                benchmark: self.name,
                figure: "object.get p50, ACL through a 1,000-member group",
                value: p(samples.get, 50),
                unit: .microseconds,
                baseline: p(samples.ping, 50),
                baselineName: "system.ping, same connection",
                target: .ratio(.atMost, 1.5),
                note: "uid \(Hostile.uid), \(calls) calls each, interleaved; p99 \(MeasurementUnit.microseconds.format(p(samples.get, 99))) "
                    + "vs ping p99 \(MeasurementUnit.microseconds.format(p(samples.ping, 99)))"
            ),
            Measurement(
                benchmark: self.name,
                figure: "durable object.create, 16 clients",
                value: Stats.median(createRates),
                unit: .perSecond,
                baseline: Stats.median(sqliteRates),
                baselineName: "SQLite WAL+FULL, 1 txn/INSERT",
                target: .ratio(.atLeast, 5),
                note: "guild: " + Format.spread(createRates, unit: .perSecond) + "; sqlite: " + Format.spread(sqliteRates, unit: .perSecond)
            ),
            Measurement(
                benchmark: self.name,
                figure: "floor: the same creates straight into the store, 16 tasks",
                value: Stats.median(floorRates),
                unit: .perSecond,
                baseline: Stats.median(sqliteRates),
                baselineName: "SQLite WAL+FULL, 1 txn/INSERT",
                target: nil,
                note: "in the bench's process, no socket or JSON-RPC, same group commit: " + Format.spread(floorRates, unit: .perSecond)
            ),
            Measurement(
                benchmark: self.name,
                figure: "object.query first page p99, eq on 100,000 objects",
                value: p(queryTimes, 99),
                unit: .milliseconds,
                baseline: nil,
                baselineName: nil,
                target: .value(.below, 10),
                note: "\(queryTimes.count) queries of 50 results; p50 \(MeasurementUnit.milliseconds.format(p(queryTimes, 50)))"
            ),
            Measurement(
                benchmark: self.name,
                figure: "object.query paged walk of the bucket",
                value: walkRate,
                unit: .perSecond,
                baseline: nil,
                baselineName: nil,
                target: nil,
                note: "\(walked) objects in pages of \(ObjectMethodsLimit.page)"
            ),
            .rss(benchmark: self.name, after: "the objects run", memory),
        ]
    }

    /// Runs `guild-bench object-reader` as uid 65534 and reads its samples.
    static func readAsUnprivileged(_ context: BenchContext, socket: String, token: String, calls: Int) async throws -> ObjectReader.Samples {
        let child = try await UnprivilegedChild.spawn(
            context,
            name: "object-reader",
            subcommand: "object-reader",
            arguments: [
                "--socket", socket, "--token", token, "--scope", "group:" + Self.groupID, "--bucket", "shared", "--object-id", "o1",
                "--calls", "\(calls)",
            ]
        )
        let (process, outputPath, logPath) = (child.process, child.outputPath, child.logPath)
        let status = await process.wait()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0, let samples = try? JSONDecoder().decode(ObjectReader.Samples.self, from: Data(text.utf8)) else {
            let errors = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw DaemonError("object-reader failed (status \(status)): \(errors.suffix(500))")
        }
        return samples
    }
}

/// The page size the walk uses: the largest `object.query` serves.
enum ObjectMethodsLimit {
    static let page = 500
}
