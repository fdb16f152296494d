import Foundation
import GuildTestSupport
import Testing

/// guildctl's thing, command and trigger commands against a real daemon, and `thing agent --exec` as a
/// shell-scripted device: the exit status becomes the result, in action order.
@Suite(.timeLimit(.minutes(3)))
struct ThingGuildctlTests {
    func guildctl(_ arguments: [String], socket: String, token: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Child.run(Build.guildctl, arguments + ["--socket", socket], environment: ["GUILD_TOKEN": token])
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test func thingsCommandsAndTriggersFromTheCommandLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket
        let registered = try await Child.run(
            Build.guildctl,
            ["user", "register", "--username", "tess", "--password", "pw-tess", "--json", "--socket", socket]
        )
        let auth = try self.json(registered.stdout)
        let token = try #require(auth["accessToken"] as? String)
        let userID = try #require((auth["user"] as? [String: Any])?["userID"] as? String)

        // Onboard (the owner defaults to the logged-in user); again with a wrong password: exit 4, no hint.
        let onboarded = try await self.guildctl(
            ["thing", "onboard", "--vendor-thing-id", "lamp-42", "--password", "s3cret", "--thing-type", "LED", "--json"],
            socket: socket,
            token: token
        )
        #expect(onboarded.status == 0, "\(onboarded.stderr)")
        let thing = try self.json(onboarded.stdout)
        let thingID = try #require(thing["thingID"] as? String)
        let thingToken = try #require(thing["accessToken"] as? String)
        let wrong = try await self.guildctl(
            ["thing", "onboard", "--vendor-thing-id", "lamp-42", "--password", "guess"],
            socket: socket,
            token: token
        )
        #expect(wrong.status == 4 && wrong.stderr.contains("INVALID_CREDENTIALS"), "\(wrong.stderr)")
        let owners = try await self.guildctl(["thing", "owners", "--thing", thingID], socket: socket, token: token)
        #expect(owners.stdout.contains("user:" + userID))

        // Two commands: the agent's script succeeds for the first and exits 3 for the second.
        let first = try await self.guildctl(
            ["command", "send", "--thing", thingID, "--action", #"turnPower={"power":true}"#, "--action", "beep", "--json"],
            socket: socket,
            token: token
        )
        let second = try await self.guildctl(["command", "send", "--thing", thingID, "--action", "fail", "--json"], socket: socket, token: token)
        let firstID = try #require(try self.json(first.stdout)["commandID"] as? String)
        let secondID = try #require(try self.json(second.stdout)["commandID"] as? String)
        let script = #"cat > "$0.in"; case "$GUILD_ACTIONS" in *fail*) echo "device on fire" >&2; exit 3;; esac"#
        let agent = try await self.guildctl(
            ["thing", "agent", "--thing", thingID, "--count", "2", "--exec", script.replacingOccurrences(of: "$0", with: scratch.path + "/cmd")],
            socket: socket,
            token: thingToken
        )
        #expect(agent.status == 0, "\(agent.stderr)")
        #expect(agent.stdout == "\(firstID) DONE\n\(secondID) INCOMPLETE\n")
        let input = try self.json(try String(contentsOfFile: scratch.path + "/cmd.in", encoding: .utf8))
        #expect(input["commandID"] as? String == secondID && input["thingID"] as? String == thingID)

        let done = try self.json(
            try await self.guildctl(["command", "get", "--thing", thingID, "--command-id", firstID, "--json"], socket: socket, token: token).stdout
        )
        #expect(done["commandState"] as? String == "DONE")
        let results = try #require(done["actionResults"] as? [[String: Any]])
        #expect(results.map { $0.keys.first } == ["turnPower", "beep"])
        let failed = try self.json(
            try await self.guildctl(["command", "get", "--thing", thingID, "--command-id", secondID, "--json"], socket: socket, token: token).stdout
        )
        #expect(failed["commandState"] as? String == "INCOMPLETE")
        let failure = try #require((failed["actionResults"] as? [[String: [String: Any]]])?.first?["fail"])
        #expect(failure["succeeded"] as? Bool == false && failure["errorMessage"] as? String == "exit status 3: device on fire")
        let list = try await self.guildctl(["command", "list", "--thing", thingID], socket: socket, token: token)
        #expect(list.stdout.contains("INCOMPLETE") && list.stdout.contains("DONE"))

        // States, as the thing, then read by the owner.
        let put = try await self.guildctl(
            ["thing", "put-state", "--thing", thingID, "--state", #"{"power":true}"#, "--json"],
            socket: socket,
            token: thingToken
        )
        #expect(try self.json(put.stdout)["created"] as? Bool == true)
        _ = try await self.guildctl(["thing", "put-state", "--thing", thingID, "--state", #"{"power":false}"#], socket: socket, token: thingToken)
        let state = try self.json(try await self.guildctl(["thing", "state", "--thing", thingID, "--json"], socket: socket, token: token).stdout)
        #expect((state["state"] as? [String: Any])?["power"] as? Bool == false)
        let history = try self.json(try await self.guildctl(["thing", "history", "--thing", thingID, "--json"], socket: socket, token: token).stdout)
        #expect((history["results"] as? [Any])?.count == 2)
        // The thing's token cannot make user calls.
        let asUser = try await self.guildctl(["thing", "owned"], socket: socket, token: thingToken)
        #expect(asUser.status == 5, "\(asUser.stderr)")

        // A trigger, listed, disabled.
        let created = try await self.guildctl(
            ["trigger", "create", "--thing", thingID, "--condition", #"{"type":"eq","field":"power","value":true}"#, "--action", "alarm", "--json"],
            socket: socket,
            token: token
        )
        let triggerID = try #require(try self.json(created.stdout)["triggerID"] as? String)
        let disabled = try await self.guildctl(["trigger", "disable", "--thing", thingID, "--trigger", triggerID], socket: socket, token: token)
        #expect(disabled.status == 0)
        let triggers = try self.json(try await self.guildctl(["trigger", "list", "--thing", thingID, "--json"], socket: socket, token: token).stdout)
        let listed = try #require((triggers["triggers"] as? [[String: Any]])?.first)
        #expect(listed["triggerID"] as? String == triggerID && listed["enabled"] as? Bool == false)
        let owned = try await self.guildctl(["thing", "owned"], socket: socket, token: token)
        #expect(owned.stdout.contains(thingID))
        let deleted = try await self.guildctl(["thing", "delete", "--thing", thingID], socket: socket, token: token)
        #expect(deleted.status == 0)
        let gone = try await self.guildctl(["thing", "get", "--thing", thingID], socket: socket, token: token)
        #expect(gone.status == 1 && gone.stderr.contains("THING_NOT_FOUND"), "\(gone.stderr)")
    }
}
