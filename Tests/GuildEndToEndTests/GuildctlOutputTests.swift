import Foundation
import GuildTestSupport
import Testing

/// guildctl's human output for each command family, through the real binaries, against the transcript in
/// `Tests/Snapshots/guildctl-human.txt` with ids, pids, paths and counters normalised. After an intended
/// change, run with `GUILD_UPDATE_SNAPSHOTS=1` to rewrite the file, and review its diff.
@Suite(.endToEnd)
struct GuildctlOutputTests {
    static let snapshot = Build.packageRoot.appendingPathComponent("Tests/Snapshots/guildctl-human.txt").path

    /// Replaces what changes from run to run: user ids (32 hex digits) and group ids (`g` and 24), numbered in
    /// order of appearance and kept at their length so tables stay aligned; the scratch directory, pids,
    /// uptimes and write counters.
    static func normalised(_ text: String, scratch: Scratch) throws -> String {
        var text = text.replacingOccurrences(of: scratch.path, with: "<scratch>")
        let ids = try NSRegularExpression(pattern: "\\b(?:[0-9a-f]{32}|g[0-9a-f]{24})\\b")
        var seen: [String: String] = [:]
        for match in ids.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let id = String(text[Range(match.range, in: text)!])
            if seen[id] == nil {
                let name = "<id\(seen.count + 1)"
                seen[id] = name + String(repeating: "-", count: max(0, id.count - name.count - 1)) + ">"
            }
        }
        for (id, name) in seen { text = text.replacingOccurrences(of: id, with: name) }
        let volatile = try NSRegularExpression(
            pattern: #"^((?:peer\.)?pid|uptimeSeconds|writes\.commits|writes\.operations|peer\.[ug]id|database\.heapBytes):( +)\S+$"#,
            options: .anchorsMatchLines
        )
        text = volatile.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1:$2<n>")
        return text
    }

    @Test func humanOutputMatchesTheSnapshot() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let environment = ["XDG_CONFIG_HOME": scratch.path + "/config", "GUILD_TOKEN": "", "GUILD_PROFILE": "", "COLUMNS": "100"]
        var transcript = ""
        var variables: [String: String] = [:]

        /// Runs guildctl (with `$NAME` in arguments replaced), appends the command and its stdout to the
        /// transcript, and returns its stdout.
        @discardableResult
        func run(_ arguments: [String], record: Bool = true) async throws -> String {
            let expanded = arguments.map { argument in variables[argument] ?? argument }
            let result = try await Child.run(Build.guildctl, ["--socket", scratch.socket] + expanded, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            if record { transcript += "$ guildctl " + arguments.joined(separator: " ") + "\n" + result.stdout + "\n" }
            return result.stdout
        }
        func json(_ arguments: [String]) async throws -> [String: Any] {
            let text = try await run(arguments + ["--json"], record: false)
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }

        try await run(["register", "--username", "alice", "--password", "pw-alice", "--display-name", "Alice"])
        try await run(["--profile", "bob", "register", "--username", "bob", "--password", "pw-bob"])
        variables["$BOB"] = try #require((try await json(["--profile", "bob", "whoami"])["user"] as? [String: Any])?["userID"] as? String)
        try await run(["whoami"])
        try await run(["group", "create", "--name", "Sales Div."])
        variables["$GROUP"] = try #require(
            try await json(["user", "owner-of"])["groups"].flatMap { ($0 as? [[String: Any]])?.first?["groupID"] as? String }
        )
        try await run(["group", "add-members", "--group-id", "$GROUP", "--user", "$BOB", "--user", "ffffffffffffffffffffffffffffffff"])
        try await run(["group", "get", "--group-id", "$GROUP"])
        try await run(["group", "members", "--group-id", "$GROUP"])
        try await run(["group", "owner", "--group-id", "$GROUP"])
        try await run(["user", "member-of"])
        try await run(["user", "get"])
        try await run(["group", "types"])
        try await run(["status"])
        try await run(["admin", "check"])
        try await run(["ping"])

        let text = try Self.normalised(transcript, scratch: scratch)
        #expect(!text.contains("{\""), "no JSON blob in human output")
        #expect(!text.contains("gt_"), "no token in human output")
        if ProcessInfo.processInfo.environment["GUILD_UPDATE_SNAPSHOTS"] == "1" {
            try text.write(toFile: Self.snapshot, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: Self.snapshot, encoding: .utf8)
        #expect(text == expected, "human output changed; rerun with GUILD_UPDATE_SNAPSHOTS=1 and review the diff:\n\(text)")
    }

    @Test func methodsWrapTheirSummariesUnderTheirColumn() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let result = try await Child.run(Build.guildctl, ["methods", "--socket", scratch.socket], environment: ["COLUMNS": "80"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        #expect(header.hasPrefix("NAME ") && header.hasSuffix("SUMMARY"))
        let column = try #require(header.range(of: "SUMMARY")).lowerBound.utf16Offset(in: header)
        #expect(lines.allSatisfy { $0.count <= 80 || !$0.dropFirst(column).contains(" ") }, "summaries wrap at the terminal width")
        let continued = lines.dropFirst().filter { $0.hasPrefix(" ") }
        #expect(!continued.isEmpty, "long summaries go on over several lines")
        #expect(continued.allSatisfy { $0.prefix(column).allSatisfy { $0 == " " } && $0.dropFirst(column).first != " " })
        #expect(lines.contains { $0.hasPrefix("system.backup ") && $0.contains(" admin ") })
    }

    @Test func watchPrintsReadableLinesOrJSON() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let environment = ["XDG_CONFIG_HOME": scratch.path + "/config", "GUILD_TOKEN": "", "GUILD_PROFILE": ""]
        let socket = ["--socket", scratch.socket]
        _ = try await Child.run(Build.guildctl, socket + ["register", "--username", "erin", "--password", "pw-erin"], environment: environment)
        let created = try await Child.run(Build.guildctl, socket + ["group", "create", "--name", "Watchers", "--json"], environment: environment)
        let createdGroup = (try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["group"]
        let groupID = try #require((createdGroup as? [String: Any])?["groupID"] as? String, "\(created.stdout)")

        let human = try await Child.run(Build.guildctl, socket + ["watch", "--since", "0", "--count", "1"], environment: environment)
        #expect(human.status == 0, "\(human.stderr)")
        let line = human.stdout.trimmingCharacters(in: .newlines)
        let pattern = try NSRegularExpression(
            pattern: #"^\d\d:\d\d:\d\d  #\d+  groupCreated  group g[0-9a-f]{24}  by [0-9a-f]{32}"#
        )
        #expect(pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil, "\(line)")
        #expect(line.contains(groupID))

        for form in [["--json"], ["-o", "jsonl"]] {
            let json = try await Child.run(Build.guildctl, socket + ["watch", "--since", "0", "--count", "1"] + form, environment: environment)
            let event = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            #expect(event?["kind"] as? String == "groupCreated", "\(form): \(json.stdout)")
            #expect(event?["groupID"] as? String == groupID)
        }
    }
}
