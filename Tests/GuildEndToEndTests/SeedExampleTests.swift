import Foundation
import GuildTestSupport
import Testing

/// The seed's worked example (Kii, "Example of manipulating user-group relationships") and group events,
/// driven through guildctl only against a real daemon.
@Suite(.endToEnd)
struct SeedExampleTests {
    /// Runs guildctl as the user of `token`; with no token it runs as this process's peer (root: admin).
    func guildctl(
        _ arguments: [String],
        socket: String,
        token: String? = nil
    ) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        // An empty GUILD_TOKEN counts as unset, so an inherited one never leaks into admin calls.
        try await Child.run(Build.guildctl, arguments + ["--socket", socket], environment: ["GUILD_TOKEN": token ?? ""])
    }

    /// Runs guildctl with `--json`, expects success, and returns the parsed result object.
    func call(
        _ arguments: [String],
        socket: String,
        token: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws -> [String: Any]
    {
        let result = try await self.guildctl(arguments + ["--json"], socket: socket, token: token)
        #expect(result.status == 0, "guildctl \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(result.stdout)", sourceLocation: sourceLocation)
    }

    /// A registered user: their id and access token.
    struct User {
        let id: String
        let token: String
    }

    func register(_ username: String, socket: String) async throws -> User {
        let auth = try await self.call(["user", "register", "--username", username, "--password", "s3cret!"], socket: socket)
        let token = try #require(auth["accessToken"] as? String)
        let id = try #require((auth["user"] as? [String: Any])?["userID"] as? String)
        return User(id: id, token: token)
    }

    /// Creates a group as `owner`; returns its id.
    func createGroup(_ name: String, as owner: User, socket: String) async throws -> String {
        let created = try await self.call(["group", "create", "--name", name], socket: socket, token: owner.token)
        let group = try #require(created["group"] as? [String: Any])
        #expect(group["name"] as? String == name)
        #expect(group["owner"] as? String == owner.id)
        #expect((created["notFoundUsers"] as? [String])?.isEmpty == true)
        return try #require(group["groupID"] as? String)
    }

    /// The names of the groups `user member-of` or `user owner-of` lists.
    func groupNames(_ subcommand: String, of user: User, socket: String) async throws -> Set<String> {
        let result = try await self.call(["user", subcommand], socket: socket, token: user.token)
        let groups = try #require(result["groups"] as? [[String: Any]])
        return Set(groups.compactMap { $0["name"] as? String })
    }

    /// Every member of a group, in join order (`group members --all`).
    func members(of groupID: String, socket: String, token: String? = nil) async throws -> [String] {
        let result = try await self.call(["group", "members", "--group-id", groupID, "--all"], socket: socket, token: token)
        #expect(result["nextCursor"] as? Int == 0)
        let members = try #require(result["members"] as? [[String: Any]])
        return members.compactMap { $0["userID"] as? String }
    }

    @Test func salesDivisionAndTennisClub() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket

        let alice = try await self.register("alice", socket: socket)
        let bob = try await self.register("bob", socket: socket)

        let sales = try await self.createGroup("Sales Div.", as: alice, socket: socket)
        let added = try await self.call(["group", "add-members", "--group-id", sales, "--user", bob.id], socket: socket, token: alice.token)
        let results = try #require(added["results"] as? [[String: Any]])
        #expect(results.count == 1)
        #expect(results.first?["userID"] as? String == bob.id)
        #expect(results.first?["result"] as? String == "SUCC")
        let tennis = try await self.createGroup("Tennis Club", as: bob, socket: socket)

        #expect(try await self.groupNames("member-of", of: bob, socket: socket) == ["Sales Div.", "Tennis Club"])
        #expect(try await self.members(of: tennis, socket: socket, token: bob.token) == [bob.id])
        #expect(Set(try await self.members(of: sales, socket: socket, token: alice.token)) == [alice.id, bob.id])
        #expect(try await self.groupNames("owner-of", of: alice, socket: socket) == ["Sales Div."])
        #expect(try await self.groupNames("owner-of", of: bob, socket: socket) == ["Tennis Club"])
        #expect(try await self.groupNames("member-of", of: alice, socket: socket) == ["Sales Div."])
        let owner = try await self.call(["group", "owner", "--group-id", sales], socket: socket, token: bob.token)
        #expect(owner["owner"] as? String == alice.id)

        // The human form: one line per group.
        let lines = try await self.guildctl(["user", "member-of"], socket: socket, token: bob.token)
        #expect(lines.status == 0, "\(lines.stderr)")
        let groupLines = lines.stdout.split(separator: "\n")
        #expect(groupLines.count == 2)
        #expect(groupLines.contains { $0.hasPrefix(sales) && $0.contains("Sales Div.") && $0.hasSuffix("(owner \(alice.id), 2 members)") })
        #expect(groupLines.contains { $0.hasPrefix(tennis) && $0.contains("Tennis Club") && $0.hasSuffix("(owner \(bob.id), 1 member)") })
    }

    @Test func deletingTheSoleMemberOwnerLeavesAnEmptyOwnerlessGroup() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket

        let carol = try await self.register("carol", socket: socket)
        let solo = try await self.createGroup("Solo", as: carol, socket: socket)
        let deleted = try await self.call(["user", "delete"], socket: socket, token: carol.token)
        #expect(deleted["userID"] as? String == carol.id)
        #expect(deleted["deleted"] as? Bool == true)

        // As admin (this test runs as root; no token).
        #expect(try await self.members(of: solo, socket: socket).isEmpty)
        let owner = try await self.call(["group", "owner", "--group-id", solo], socket: socket)
        #expect(owner.keys.contains("owner"))
        #expect(owner["owner"] is NSNull)
        let human = try await self.guildctl(["group", "owner", "--group-id", solo], socket: socket)
        #expect(human.stdout == "(none)\n")

        let check = try await self.guildctl(["admin", "check"], socket: socket)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout == "ok\n")
        let checked = try await self.call(["admin", "check"], socket: socket)
        #expect(checked["ok"] as? Bool == true)
        #expect((checked["violations"] as? [String])?.isEmpty == true)
    }

    @Test func watchPrintsEventsAsJSONLines() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket

        let alice = try await self.register("alice", socket: socket)
        let bob = try await self.register("bob", socket: socket)
        let sales = try await self.createGroup("Sales Div.", as: alice, socket: socket)

        let watch = try await Child(
            Build.guildctl,
            ["watch", "--count", "2", "--json", "--socket", socket],
            environment: ["GUILD_TOKEN": alice.token]
        )
        defer { watch.terminate() }
        // It only sees what happens after it subscribed: wait for the daemon to count its subscription (a fixed
        // pause was too short for guildctl's start on a busy machine, and the rename went unseen).
        var subscribed = false
        let deadline = ContinuousClock.now + .seconds(60)
        while !subscribed, ContinuousClock.now < deadline {
            let metrics = try await Child.run(Build.guildctl, ["metrics", "--socket", socket])
            subscribed = metrics.stdout.split(separator: "\n").contains { line in
                line.hasPrefix("guild_subscriptions ") && (Double(line.split(separator: " ").last ?? "") ?? 0) >= 1
            }
            if !subscribed { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(subscribed, "guildctl watch never subscribed")

        _ = try await self.call(["group", "rename", "--group-id", sales, "--name", "Sales"], socket: socket, token: alice.token)
        _ = try await self.call(["group", "add-members", "--group-id", sales, "--user", bob.id], socket: socket, token: alice.token)

        let status = await watch.wait()
        #expect(status == 0, "watch: \(String(describing: status)); stderr: \(watch.stderr)")
        let lines = watch.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(watch.stdout.hasSuffix("\n"))
        #expect(lines.count == 2, "\(watch.stdout)")
        let events = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        #expect(events.map { $0["kind"] as? String } == ["groupInfoChanged", "memberInvited"])
        #expect(events.allSatisfy { $0["groupID"] as? String == sales })
        #expect(events.allSatisfy { $0["actor"] as? String == alice.id })
        #expect((events.first?["changes"] as? [String: Any])?["name"] as? String == "Sales")
        #expect(events.last?["users"] as? [String] == [bob.id])
        let seqs = events.compactMap { $0["seq"] as? Int }
        #expect(seqs.count == 2 && seqs[0] < seqs[1])
    }
}
