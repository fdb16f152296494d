import Foundation
import GRDB
import Glibc
import GuildHarness
import GuildProtocol

/// Reads on a large database: 1,000,000 memberships over 100,000 groups and 100,000 pseudo users (10x fewer
/// with `--quick`), seeded with SQL while guildd is stopped. guildd first runs once on a fresh file to
/// migrate it; the bench then inserts, in one transaction, the users, the groups (with correct memberCount),
/// the memberships (the first member of each group is its owner) and an open membership_history interval
/// per membership (fromSeq 0), so `system.check` stays clean. One "hot" user is a member of 1,000 groups;
/// ten groups have 10,000 members; the other memberships go round-robin over the other users (8 or 9 per
/// group, 9 per user).
///
/// Then, on a restarted guildd, an admin connection measures sequential `user.memberOfGroups` of the hot
/// user and `group.members` pages (limit 100) walking the ten large groups, from a raw blocking client
/// (write the request line, read the whole reply line).
struct Scale: Benchmark {
    let name = "scale"
    let summary = "user.memberOfGroups (1,000 groups) and group.members pages on 1,000,000 memberships"

    /// The shape of the seeded data.
    struct Plan: Sendable {
        var users: Int
        var groups: Int
        var memberships: Int
        /// Groups of `largeSize` members each, walked page by page.
        var largeGroups: Int
        var largeSize: Int
        /// How many groups the hot user is in.
        var hotGroups: Int

        static func make(quick: Bool) -> Plan {
            let factor = quick ? 10 : 1
            return Plan(
                users: 100_000 / factor,
                groups: 100_000 / factor,
                memberships: 1_000_000 / factor,
                largeGroups: 10,
                largeSize: 10_000 / factor,
                hotGroups: 1_000 / factor
            )
        }

        /// Deterministic IDs in guildd's shapes: 32 hex digits for users, "g" + 24 for groups; the first half
        /// is a hash so that index order is not insertion order.
        static func mix(_ value: UInt64) -> UInt64 {
            var z = value &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        static func hex(_ value: UInt64, digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text.suffix(digits)
        }

        func userID(_ index: Int) -> String {
            Self.hex(Self.mix(UInt64(index)), digits: 16) + Self.hex(UInt64(index), digits: 16)
        }

        func groupID(_ index: Int) -> String {
            "g" + Self.hex(Self.mix(UInt64(index) | 1 << 40), digits: 12) + Self.hex(UInt64(index), digits: 12)
        }

        /// The hot user: the last one, not in the round-robin.
        var hotUser: Int { self.users - 1 }
    }

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let plan = Plan.make(quick: context.quick)
        let database = context.path("scale.db")

        // 1. Migrate a fresh file, then stop guildd.
        let first = try await launchOwnDaemon(context, name: "scale")
        await first.stop()
        let status = await first.process.wait()
        guard status == 0 else {
            throw DaemonError("guildd exited with status \(status) on SIGTERM; log:\n\(first.logTail())")
        }

        // 2. Seed.
        context.progress(
            "  seeding \(Format.grouped(Double(plan.memberships))) memberships over \(Format.grouped(Double(plan.groups))) groups "
                + "and \(Format.grouped(Double(plan.users))) users"
        )
        let seedStarted = monotonicNanos()
        try await onThread("scale-seed") { try Self.seed(database, plan: plan) }
        let seedSeconds = Double(monotonicNanos() - seedStarted) / 1e9
        context.progress("  seeded in \(Format.decimal(seedSeconds, digits: 1)) s; \(MeasurementUnit.mebibytes.format(Self.fileMiB(database)))")

        // 3. Restart guildd on it and measure.
        let daemon = try await launchOwnDaemon(context, name: "scale")
        do {
            let socketPath = daemon.socketPath
            let quick = context.quick
            let result = try await onThread("scale-client") { try Self.measure(socketPath, plan: plan, quick: quick) }
            let memory = try daemon.memory()
            let size = Self.fileMiB(database)
            await daemon.stop()
            reportDaemonLogProblems(daemon, context)
            context.progress(
                "  system.check \(result.check) in \(Format.decimal(result.checkSeconds, digits: 1)) s; memberOfGroups p50 "
                    + "\(MeasurementUnit.milliseconds.format(Stats.percentile(sorted: result.memberOf, 50))), p99 "
                    + "\(MeasurementUnit.milliseconds.format(Stats.percentile(sorted: result.memberOf, 99))); members page p50 "
                    + "\(MeasurementUnit.milliseconds.format(Stats.percentile(sorted: result.pages, 50))), p99 "
                    + "\(MeasurementUnit.milliseconds.format(Stats.percentile(sorted: result.pages, 99))); "
                    + "DB \(MeasurementUnit.mebibytes.format(size)), guildd VmRSS \(MeasurementUnit.mebibytes.format(memory.rssMiB))"
            )
            let shape =
                "\(Format.grouped(Double(plan.memberships))) memberships, \(Format.grouped(Double(plan.groups))) groups, "
                + "\(Format.grouped(Double(plan.users))) users"
            let ms = MeasurementUnit.milliseconds
            return [
                Measurement(
                    benchmark: self.name,
                    figure: "user.memberOfGroups (\(Format.grouped(Double(plan.hotGroups))) groups) p50",
                    value: Stats.percentile(sorted: result.memberOf, 50),
                    unit: .milliseconds,
                    target: nil,
                    note: "\(result.memberOf.count) sequential calls as admin with userID, raw client, "
                        + "\(Format.grouped(Double(result.memberOfBytes))) B replies; \(shape); diagnostic: a user in "
                        + "\(result.ordinaryUserGroups) groups p50 \(ms.format(result.ordinaryMemberOf))"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "user.memberOfGroups (\(Format.grouped(Double(plan.hotGroups))) groups) p99",
                    value: Stats.percentile(sorted: result.memberOf, 99),
                    unit: .milliseconds,
                    target: .value(.below, 2),
                    note: "max \(ms.format(result.memberOf.last ?? .nan))"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "group.members page (limit 100) p50",
                    value: Stats.percentile(sorted: result.pages, 50),
                    unit: .milliseconds,
                    target: nil,
                    note: "\(result.pages.count) pages: \(result.walks) walks of \(plan.largeGroups) groups × "
                        + "\(Format.grouped(Double(plan.largeSize))) members; diagnostic: the only page of a "
                        + "\(result.smallGroupMembers)-member group p50 \(ms.format(result.smallGroupPage))"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "group.members page (limit 100) p99",
                    value: Stats.percentile(sorted: result.pages, 99),
                    unit: .milliseconds,
                    target: .value(.below, 2),
                    note: "max \(ms.format(result.pages.last ?? .nan))"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "database size (with -wal)",
                    value: size,
                    unit: .mebibytes,
                    target: nil,
                    note: "seeded in \(Format.decimal(seedSeconds, digits: 1)) s (one transaction); "
                        + "system.check \(result.check) in \(Format.decimal(result.checkSeconds, digits: 1)) s"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "guildd RSS after the queries",
                    value: memory.rssMiB,
                    unit: .mebibytes,
                    target: nil,
                    note: "VmHWM \(MeasurementUnit.mebibytes.format(memory.hwmMiB))"
                ),
            ]
        } catch {
            await daemon.stop()
            throw error
        }
    }

    /// Size of the database file and its -wal, MiB.
    static func fileMiB(_ path: String) -> Double {
        var bytes = 0
        for file in [path, path + "-wal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber {
                bytes += size.intValue
            }
        }
        return Double(bytes) / 1_048_576
    }

    // MARK: - Seeding

    /// Blocking: inserts the plan's rows into a migrated, empty database (guildd stopped).
    static func seed(_ path: String, plan: Plan) throws {
        var config = Configuration()
        config.label = "scale-seed"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = -262144")
        }
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        let userIDs = (0..<plan.users).map(plan.userID)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try queue.write { db in
            let existing = try Int.fetchOne(db, sql: #"SELECT count(*) FROM "user""#) ?? -1
            guard existing == 0 else { throw DaemonError("scale: the fresh database already has \(existing) users") }

            let insertUser = try db.makeStatement(
                sql: #"INSERT INTO "user" (id, displayName, fields, isPseudo, createdAt, modifiedAt) VALUES (?, ?, '{}', 1, ?, ?)"#
            )
            for (index, id) in userIDs.enumerated() {
                try insertUser.execute(arguments: [id, "user \(index)", now, now])
            }

            // Member lists: large groups first, then the rest; round-robin over every user but the hot one.
            let roundRobinUsers = plan.users - 1
            let small = plan.groups - plan.largeGroups
            let smallTotal = plan.memberships - plan.largeGroups * plan.largeSize - plan.hotGroups
            let base = smallTotal / small
            let extra = smallTotal % small
            precondition(base >= 1 && plan.largeSize <= roundRobinUsers && plan.largeGroups + plan.hotGroups <= plan.groups)

            let insertGroup = try db.makeStatement(
                sql: #"INSERT INTO "group" (id, name, type, memberCount, createdAt, modifiedAt) VALUES (?, ?, 'Basic', ?, ?, ?)"#
            )
            let insertMember = try db.makeStatement(sql: "INSERT INTO membership (groupID, userID, role, joinedAt) VALUES (?, ?, ?, ?)")
            let insertHistory = try db.makeStatement(
                sql: "INSERT INTO membership_history (groupID, userID, fromSeq, toSeq) VALUES (?, ?, 0, NULL)"
            )
            var next = 0  // round-robin position
            var total = 0
            for group in 0..<plan.groups {
                let id = plan.groupID(group)
                let fromRoundRobin = group < plan.largeGroups ? plan.largeSize : base + (group - plan.largeGroups < extra ? 1 : 0)
                // The hot user joins the first `hotGroups` small groups, last.
                let hot = group >= plan.largeGroups && group < plan.largeGroups + plan.hotGroups
                let count = fromRoundRobin + (hot ? 1 : 0)
                try insertGroup.execute(arguments: [id, "group \(group)", count, now, now])
                for position in 0..<count {
                    let user: String
                    if position < fromRoundRobin {
                        user = userIDs[next]
                        next = (next + 1) % roundRobinUsers
                    } else {
                        user = userIDs[plan.hotUser]
                    }
                    try insertMember.execute(arguments: [id, user, position == 0 ? "owner" : "member", now])
                    try insertHistory.execute(arguments: [id, user])
                }
                total += count
            }
            guard total == plan.memberships else {
                throw DaemonError("scale: seeded \(total) memberships, planned \(plan.memberships)")
            }
        }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    // MARK: - Measuring

    struct Result: Sendable {
        /// Sorted round trips, ms.
        var memberOf: [Double]
        var memberOfBytes: Int
        var pages: [Double]
        var walks: Int
        var check: String
        var checkSeconds: Double
        /// Diagnostics: p50 of user.memberOfGroups for an ordinary user, and of the only page of a small group.
        var ordinaryUserGroups: Int
        var ordinaryMemberOf: Double
        var smallGroupMembers: Int
        var smallGroupPage: Double
    }

    static let nextCursorKey = Array(#""nextCursor":"#.utf8)

    /// Blocking: system.check, then the timed reads.
    static func measure(_ socketPath: String, plan: Plan, quick: Bool) throws -> Result {
        let connection = try LineConnection(path: socketPath, timeout: 300, capacity: 512 * 1024)
        defer { connection.close() }

        let checkStarted = monotonicNanos()
        let check = try connection.call(SystemMethods.Check.self, NoParams())
        let checkSeconds = Double(monotonicNanos() - checkStarted) / 1e9
        guard check.ok else {
            throw DaemonError("system.check on the seeded database: integrity \(check.integrity), violations \(check.violations.prefix(5))")
        }

        // user.memberOfGroups of the hot user: check one reply in full, then time.
        let hotUser = plan.userID(plan.hotUser)
        let groups = try connection.call(UserMethods.MemberOfGroups.self, .init(userID: hotUser)).groups
        guard groups.count == plan.hotGroups, Set(groups.map(\.groupID)).count == plan.hotGroups else {
            throw DaemonError("user.memberOfGroups returned \(groups.count) groups for the hot user, expected \(plan.hotGroups)")
        }
        let memberOfLine = try RawRPC.request(UserMethods.MemberOfGroups.self, .init(userID: hotUser), id: 1_000_000)
        var replyBytes = 0
        func timedCall(_ line: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Double {
            let start = monotonicNanos()
            try connection.send(line)
            try connection.readLines { reply in
                try body(reply)
                return false
            }
            return Double(monotonicNanos() - start) / 1e6
        }
        let failure = Array(#""error":"#.utf8)
        let calls = quick ? 300 : 2_000
        var memberOf: [Double] = []
        for index in 0..<(calls + calls / 10) {
            let milliseconds = try timedCall(memberOfLine) { reply in
                guard !RawRPC.contains(reply, failure) else { throw DaemonError("user.memberOfGroups: \(RawRPC.preview(reply))") }
                replyBytes = reply.count
            }
            if index >= calls / 10 { memberOf.append(milliseconds) }  // the first tenth warms up
        }

        // Diagnostics: the same calls on an ordinary user and a small group (fixed cost vs size).
        let ordinaryUser = plan.userID(0)
        let ordinaryUserGroups = try connection.call(UserMethods.MemberOfGroups.self, .init(userID: ordinaryUser)).groups.count
        let ordinaryLine = try RawRPC.request(UserMethods.MemberOfGroups.self, .init(userID: ordinaryUser), id: 2)
        var ordinary: [Double] = []
        for _ in 0..<300 {
            ordinary.append(try timedCall(ordinaryLine) { _ in })
        }
        let smallGroup = plan.groupID(plan.groups - 1)
        let smallGroupMembers = try connection.call(GroupMethods.Members.self, .init(groupID: smallGroup, limit: 100)).members.count
        let smallLine = try RawRPC.request(GroupMethods.Members.self, .init(groupID: smallGroup, limit: 100), id: 3)
        var small: [Double] = []
        for _ in 0..<300 {
            small.append(try timedCall(smallLine) { _ in })
        }

        // group.members pages, walking the large groups; the first walk checks every page in full.
        let walks = 3
        var pages: [Double] = []
        for walk in 0..<walks {
            for group in 0..<plan.largeGroups {
                let groupID = plan.groupID(group)
                var cursor: Int64 = 0
                var seen = Set<String>()
                var pageCount = 0
                repeat {
                    let line = try RawRPC.request(
                        GroupMethods.Members.self,
                        .init(groupID: groupID, cursor: cursor == 0 ? nil : cursor, limit: 100),
                        id: pageCount + 1
                    )
                    var reply: [UInt8] = []
                    var next: Int64 = -1
                    let milliseconds = try timedCall(line) { bytes in
                        guard let value = Self.nextCursorKey.withUnsafeBytes({ RawRPC.integer(after: $0, in: bytes) }) else {
                            throw DaemonError("group.members: no nextCursor in \(RawRPC.preview(bytes))")
                        }
                        next = value.value
                        if walk == 0 { reply = Array(bytes) }
                    }
                    pages.append(milliseconds)
                    if walk == 0 {
                        let page = try RawRPC.decode(GroupMethods.Members.self, reply)
                        guard page.nextCursor == next else {
                            throw DaemonError("group.members: scanned nextCursor \(next), decoded \(page.nextCursor)")
                        }
                        seen.formUnion(page.members.map(\.userID))
                    }
                    cursor = next
                    pageCount += 1
                } while cursor != 0 && pageCount <= plan.largeSize
                if walk == 0, seen.count != plan.largeSize {
                    throw DaemonError(
                        "group.members walk of \(groupID) found \(seen.count) distinct members in \(pageCount) pages, expected \(plan.largeSize)"
                    )
                }
            }
        }
        return Result(
            memberOf: memberOf.sorted(),
            memberOfBytes: replyBytes,
            pages: pages.sorted(),
            walks: walks,
            check: check.ok ? "ok" : "FAILED",
            checkSeconds: checkSeconds,
            ordinaryUserGroups: ordinaryUserGroups,
            ordinaryMemberOf: Stats.median(ordinary),
            smallGroupMembers: smallGroupMembers,
            smallGroupPage: Stats.median(small)
        )
    }
}
