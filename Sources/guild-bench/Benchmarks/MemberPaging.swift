import Foundation
import GuildHarness
import GuildProtocol

/// Member list paging: a Meeting group at its limit of 6,000 members (1,000 with `--quick`), walked end to
/// end with `group.memberList` (50 a page, `nextSeq` until 0) by one of its members.
///
/// Set-up, on a guildd of its own: the users are pseudo users registered in batches; an admin connection
/// (the bench runs as guildd's uid, so it is an app admin) creates the group with the first user as owner
/// and adds the others with `group.addMembers`, 300 a call (Meeting invitations are app-admin only). The
/// walking connection then binds the session of an ordinary member with `session.authenticate`.
///
/// Each page is timed from a raw blocking client: write the request line, read the whole reply line, pick
/// `nextSeq` out of its bytes. A walk's time is first request → last reply with only that in between; the
/// replies are decoded after the walk and checked: every member exactly once, no one else. One untimed
/// warm-up walk, then `--runs` timed walks.
struct MemberPaging: Benchmark {
    let name = "member-paging"
    let summary = "group.memberList pages (50 a page) walking a 6,000-member Meeting group as a member"

    static let groupID = "meeting"
    static let pageSize = 50

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let members = context.quick ? 1_000 : 6_000
        let walks = context.runs
        let daemon = try await launchOwnDaemon(context, name: "paging")
        do {
            let socketPath = daemon.socketPath
            context.progress("  registering \(Format.grouped(Double(members))) users and filling the Meeting group")
            let started = monotonicNanos()
            let users = try await onThread("member-paging-setup") { try Self.prepare(socketPath, members: members) }
            context.progress("  set up in \(Format.decimal(Double(monotonicNanos() - started) / 1e9, digits: 1)) s")

            let result = try await onThread("member-paging-client") {
                try Self.measure(socketPath, users: users, walks: walks)
            }
            await daemon.stop()
            reportDaemonLogProblems(daemon, context)

            let pages = result.pages.sorted()
            let ms = MeasurementUnit.milliseconds
            context.progress(
                "  \(walks) walks × \(result.pagesPerWalk) pages: page p50 \(ms.format(Stats.percentile(sorted: pages, 50))), "
                    + "p99 \(ms.format(Stats.percentile(sorted: pages, 99))); walks \(result.walks.map { ms.format($0) }.joined(separator: ", "))"
            )
            let shape =
                "Meeting group of \(Format.grouped(Double(members))) members, \(result.pagesPerWalk) pages a walk, "
                + "as a member (session bound), raw blocking client"
            return [
                Measurement(
                    benchmark: self.name,
                    figure: "group.memberList page (50) p50",
                    value: Stats.percentile(sorted: pages, 50),
                    unit: .milliseconds,
                    target: nil,
                    note: "\(pages.count) pages over \(walks) walks; \(shape); \(Format.grouped(Double(result.replyBytes))) B a full page"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "group.memberList page (50) p99",
                    value: Stats.percentile(sorted: pages, 99),
                    unit: .milliseconds,
                    target: nil,
                    note: "max \(ms.format(pages.last ?? .nan))"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "full walk, \(Format.grouped(Double(members))) members (median)",
                    value: Stats.median(result.walks),
                    unit: .milliseconds,
                    target: nil,
                    note: "median of " + Format.spread(result.walks, unit: .milliseconds)
                        + "; every walk checked: each member exactly once, no duplicates, no omissions"
                ),
            ]
        } catch {
            await daemon.stop()
            throw error
        }
    }

    // MARK: - Setup

    /// Blocking: the users (the first is the owner) and the filled group.
    static func prepare(_ socketPath: String, members: Int) throws -> [PseudoUser] {
        let users = try IMSetup.registerPseudoUsers(socketPath, count: members, namePrefix: "meeting member")
        let admin = try LineConnection(path: socketPath, timeout: 120)
        defer { admin.close() }
        _ = try admin.call(
            GroupMethods.Create.self,
            .init(name: "member paging", groupID: Self.groupID, type: .meeting, owner: users[0].userID)
        )
        var start = 1
        while start < users.count {
            let chunk = users[start..<min(start + 300, users.count)].map(\.userID)
            let added = try admin.call(GroupMethods.AddMembers.self, .init(groupID: Self.groupID, userIDs: chunk))
            let failed = added.results.filter { $0.result != "SUCC" }
            guard failed.isEmpty, added.results.count == chunk.count else {
                throw DaemonError("group.addMembers: \(failed.count) of \(chunk.count) not SUCC, first: \(String(describing: failed.first))")
            }
            start += chunk.count
        }
        let group = try admin.call(GroupMethods.Get.self, .init(groupID: Self.groupID))
        guard group.memberCount == members else {
            throw DaemonError("the Meeting group has \(group.memberCount) members, expected \(members)")
        }
        return users
    }

    // MARK: - Measuring

    struct Result: Sendable {
        /// Every timed page round trip, ms.
        var pages: [Double]
        /// Every timed walk, ms.
        var walks: [Double]
        var pagesPerWalk: Int
        var replyBytes: Int
    }

    static let nextSeqKey = Array(#""nextSeq":"#.utf8)

    /// Blocking: binds a member's session, then one warm-up walk and `walks` timed ones, each checked.
    static func measure(_ socketPath: String, users: [PseudoUser], walks: Int) throws -> Result {
        let connection = try LineConnection(path: socketPath, timeout: 60, capacity: 256 * 1024)
        defer { connection.close() }
        // An ordinary member (not the owner).
        let walker = users[users.count / 2]
        let session = try connection.call(SessionMethods.Authenticate.self, .init(accessToken: walker.accessToken))
        guard session.user?.userID == walker.userID else {
            throw DaemonError("session.authenticate bound \(String(describing: session.user?.userID)), expected \(walker.userID)")
        }
        let expected = Set(users.map(\.userID))

        var pages: [Double] = []
        var walkTimes: [Double] = []
        var pagesPerWalk = 0
        var replyBytes = 0
        for walk in 0...walks {
            var replies: [[UInt8]] = []
            var times: [Double] = []
            var nextSeq: Int64 = 0
            let walkStart = monotonicNanos()
            repeat {
                let line = try RawRPC.request(
                    GroupMethods.MemberList.self,
                    .init(groupID: Self.groupID, nextSeq: nextSeq == 0 ? nil : nextSeq),
                    id: replies.count + 1
                )
                let start = monotonicNanos()
                try connection.send(line)
                var reply: [UInt8] = []
                try connection.readLines { bytes in
                    reply = Array(bytes)
                    return false
                }
                times.append(Double(monotonicNanos() - start) / 1e6)
                guard let next = Self.nextSeqKey.withUnsafeBytes({ key in reply.withUnsafeBytes { RawRPC.integer(after: key, in: $0) } })
                else {
                    throw DaemonError("group.memberList: no nextSeq in \(RawRPC.preview(reply))")
                }
                nextSeq = next.value
                replies.append(reply)
            } while nextSeq != 0 && replies.count <= users.count
            let walkTime = Double(monotonicNanos() - walkStart) / 1e6

            // Check the walk: every member once, nobody else.
            var seen = Set<String>()
            var listed = 0
            for (index, reply) in replies.enumerated() {
                let page = try RawRPC.decode(GroupMethods.MemberList.self, reply)
                guard page.members.count <= Self.pageSize else {
                    throw DaemonError("group.memberList page \(index) has \(page.members.count) members (more than \(Self.pageSize))")
                }
                listed += page.members.count
                seen.formUnion(page.members.map(\.userID))
                replyBytes = max(replyBytes, reply.count)
            }
            let missing = expected.subtracting(seen).count
            let unknown = seen.subtracting(expected).count
            guard listed == expected.count, seen == expected else {
                throw DaemonError(
                    "group.memberList walk \(walk): \(listed) entries in \(replies.count) pages, \(seen.count) distinct, "
                        + "\(listed - seen.count) duplicates, \(missing) missing, \(unknown) not members; expected \(expected.count)"
                )
            }
            if walk > 0 {
                pages += times
                walkTimes.append(walkTime)
                pagesPerWalk = replies.count
            }
        }
        return Result(pages: pages, walks: walkTimes, pagesPerWalk: pagesPerWalk, replyBytes: replyBytes)
    }
}
