import Foundation
import GuildTestSupport
import Testing

/// `guildctl thing history --every` against a real daemon (issue 42, item 4): thing.stateHistory grouped
/// through the socket, a table per interval, `--json`, and the same rule as the paged history on who may read
/// it (checked as `nobody`, since root peers are admins).
extension ThingGuildctlTests {
    @Test func historyEveryHourPrintsAggregatesPerInterval() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"])
        defer { daemon.terminate() }
        let socket = scratch.socket
        let alice = try await self.register("alice", socket: socket)
        let stranger = try await self.register("stranger", socket: socket)
        let onboarded = try await self.unprivileged(
            ["thing", "onboard", "--vendor-thing-id", "thermo-1", "--password", "pw", "--json"],
            socket: socket,
            token: alice.token
        )
        #expect(onboarded.status == 0, "\(onboarded.stderr)")
        let thing = try self.json(onboarded.stdout)
        let thingID = try #require(thing["thingID"] as? String)
        let thingToken = try #require(thing["accessToken"] as? String)

        // Hour 0: 20 and 23; hour 1: none; hour 2: 18 (times in ms since 1970).
        for (temp, time) in [(20, 60_000), (23, 1_800_000), (18, 7_200_000)] {
            let put = try await self.unprivileged(
                ["thing", "put-state", "--thing", thingID, "--state", "{\"temp\":\(temp)}", "--timestamp", "\(time)"],
                socket: socket,
                token: thingToken
            )
            #expect(put.status == 0, "\(put.stderr)")
        }
        let range = ["--from", "0", "--to", "10799999"]
        let asked = try await self.unprivileged(
            ["thing", "history", "--thing", thingID, "--every", "1h", "--max", "temp", "--mean", "temp", "--json"] + range,
            socket: socket,
            token: alice.token
        )
        #expect(asked.status == 0, "\(asked.stderr)")
        let groups = try #require(try self.json(asked.stdout)["groupedResults"] as? [[String: Any]])
        #expect(groups.count == 3)
        let ranges = groups.compactMap { $0["range"] as? [String: Any] }
        #expect(ranges.map { $0["from"] as? Int } == [0, 3_600_000, 7_200_000])
        #expect(ranges.map { $0["to"] as? Int } == [3_599_999, 7_199_999, 10_799_999])
        func values(_ group: [String: Any]) -> [String: Any] {
            let aggregations = group["aggregations"] as? [[String: Any]] ?? []
            return Dictionary(
                aggregations.map { ($0["putAggregationInto"] as? String ?? "?", $0["value"] ?? NSNull()) },
                uniquingKeysWith: { first, _ in first }
            )
        }
        #expect(values(groups[0])["states"] as? Int == 2)
        #expect(values(groups[0])["max_temp"] as? Int == 23)
        #expect(values(groups[0])["mean_temp"] as? Double == 21.5)
        #expect(values(groups[1])["states"] as? Int == 0 && values(groups[1])["max_temp"] is NSNull)
        #expect(values(groups[2])["max_temp"] as? Int == 18)

        // For people: a row per interval; no sparkline when stdout is no terminal.
        let table = try await Child.run(
            Build.guildctl,
            ["thing", "history", "--thing", thingID, "--every", "1h", "--max", "temp", "--socket", socket] + range,
            environment: ["GUILD_TOKEN": alice.token, "TZ": "UTC"]
        )
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(table.stdout)")
        #expect(lines.first?.hasPrefix("FROM") == true && lines.first?.contains("STATES") == true && lines.first?.contains("MAX TEMP") == true)
        #expect(lines.dropFirst().first?.hasPrefix("1970-01-01 00:00") == true, "\(table.stdout)")
        #expect(lines[2].hasSuffix("-"), "an hour without states: \(table.stdout)")
        #expect(!table.stdout.contains("▁"))

        // Who may read it: as for the paged history; a stranger is refused (exit 5).
        let refused = try await self.unprivileged(
            ["thing", "history", "--thing", thingID, "--every", "1h", "--max", "temp"] + range,
            socket: socket,
            token: stranger.token
        )
        #expect(refused.status == 5 && refused.stderr.contains("PERMISSION_DENIED"), "\(refused.stderr)")

        // The daemon's limits and guildctl's own checks.
        let tooMany = try await self.unprivileged(
            ["thing", "history", "--thing", thingID, "--every", "1s", "--from", "0", "--to", "86400000"],
            socket: socket,
            token: alice.token
        )
        #expect(tooMany.status != 0 && tooMany.stderr.contains("interval"), "\(tooMany.stderr)")
        let noEvery = try await self.unprivileged(["thing", "history", "--thing", thingID, "--max", "temp"], socket: socket, token: alice.token)
        #expect(noEvery.status != 0 && noEvery.stderr.contains("--every"), "\(noEvery.stderr)")
        let badEvery = try await self.unprivileged(["thing", "history", "--thing", thingID, "--every", "soon"], socket: socket, token: alice.token)
        #expect(badEvery.status != 0 && badEvery.stderr.contains("--every"), "\(badEvery.stderr)")
    }
}
