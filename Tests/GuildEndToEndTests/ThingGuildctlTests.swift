import Foundation
import GuildTestSupport
import Testing

/// guildctl's thing, command and trigger commands against a real daemon, and `thing agent --exec` as a
/// shell-scripted device: the exit status becomes the result, in action order.
@Suite(.endToEnd)
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
            ["user", "register", "--username", "tess", "--password", "pw-tess", "--json", "--socket", socket],
            environment: ["XDG_CONFIG_HOME": scratch.path + "/config"]
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
        let enabled = try await self.guildctl(["trigger", "enable", "--thing", thingID, "--trigger", triggerID], socket: socket, token: token)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        let relisted = try self.json(try await self.guildctl(["trigger", "list", "--thing", thingID, "--json"], socket: socket, token: token).stdout)
        #expect((relisted["triggers"] as? [[String: Any]])?.first?["enabled"] as? Bool == true)
        let removed = try await self.guildctl(["trigger", "delete", "--thing", thingID, "--trigger", triggerID], socket: socket, token: token)
        #expect(removed.status == 0, "\(removed.stderr)")
        let none = try self.json(try await self.guildctl(["trigger", "list", "--thing", thingID, "--json"], socket: socket, token: token).stdout)
        #expect((none["triggers"] as? [Any])?.isEmpty == true)
        let owned = try await self.guildctl(["thing", "owned"], socket: socket, token: token)
        #expect(owned.stdout.contains(thingID))
        let deleted = try await self.guildctl(["thing", "delete", "--thing", thingID], socket: socket, token: token)
        #expect(deleted.status == 0)
        let gone = try await self.guildctl(["thing", "get", "--thing", thingID], socket: socket, token: token)
        #expect(gone.status == 1 && gone.stderr.contains("THING_NOT_FOUND"), "\(gone.stderr)")
    }

    /// Registers a user with guildctl; returns their token and id.
    func register(_ name: String, socket: String) async throws -> (token: String, userID: String) {
        let registered = try await Child.run(
            Build.guildctl,
            ["user", "register", "--username", name, "--password", "pw-" + name, "--json", "--socket", socket],
            environment: ["XDG_CONFIG_HOME": socket + ".config"]
        )
        let auth = try self.json(registered.stdout)
        return (try #require(auth["accessToken"] as? String), try #require((auth["user"] as? [String: Any])?["userID"] as? String))
    }

    /// The owners thing.owners lists.
    func owners(_ thingID: String, socket: String, token: String) async throws -> Set<String> {
        let listed = try await self.guildctl(["thing", "owners", "--thing", thingID, "--json"], socket: socket, token: token)
        return Set(try self.json(listed.stdout)["owners"] as? [String] ?? [])
    }

    /// Runs guildctl as `nobody`: root peers are admins whatever their session, so refusals need another uid.
    func unprivileged(_ arguments: [String], socket: String, token: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Child.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", Build.guildctl] + arguments + ["--socket", socket],
            environment: ["GUILD_TOKEN": token]
        )
    }

    /// Owners are checked as `nobody` (see ``unprivileged(_:socket:token:)``).
    @Test func onboardPrintsTheTokenAndOwnersComeAndGo() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"])
        defer { daemon.terminate() }
        let socket = scratch.socket
        let alice = try await self.register("alice", socket: socket)
        let bob = try await self.register("bob", socket: socket)

        // Human output shows the thing's id and its token (kept nowhere else); the token acts as the thing.
        let onboarded = try await self.unprivileged(
            ["thing", "onboard", "--vendor-thing-id", "fan-7", "--password", "fan-pw", "--properties", #"{"room":"hall"}"#],
            socket: socket,
            token: alice.token
        )
        #expect(onboarded.status == 0, "\(onboarded.stderr)")
        let rows = Dictionary(
            onboarded.stdout.split(separator: "\n").map { line in
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return (parts.first ?? "", parts.last ?? "")
            },
            uniquingKeysWith: { first, _ in first }
        )
        let thingID = try #require(rows["thingID"])
        let thingToken = try #require(rows["accessToken"])
        #expect(thingID.hasPrefix("th.") && !thingToken.isEmpty, "\(onboarded.stdout)")
        let whoami = try await self.unprivileged(["whoami", "--json"], socket: socket, token: thingToken)
        #expect(try self.json(whoami.stdout)["thingID"] as? String == thingID, "\(whoami.stdout)")
        let record = try self.json(
            try await self.unprivileged(["thing", "get", "--thing", thingID, "--json"], socket: socket, token: alice.token).stdout
        )
        #expect((record["thingProperties"] as? [String: Any])?["room"] as? String == "hall")

        // A wrong password is INVALID_CREDENTIALS: exit 4 (unauthorized), even with --json.
        let wrong = try await self.unprivileged(
            ["thing", "onboard", "--vendor-thing-id", "fan-7", "--password", "not-it", "--json"],
            socket: socket,
            token: bob.token
        )
        #expect(wrong.status == 4 && wrong.stdout.isEmpty && wrong.stderr.contains("INVALID_CREDENTIALS"), "\(wrong.stderr)")

        // Bob is no owner: refused (exit 5). He adds himself, then alice is told she cannot remove him.
        let peek = try await self.unprivileged(["thing", "owners", "--thing", thingID], socket: socket, token: bob.token)
        #expect(peek.status == 5 && peek.stderr.contains("PERMISSION_DENIED"), "\(peek.stderr)")
        let added = try await self.unprivileged(["thing", "add-owner", "--thing", thingID], socket: socket, token: bob.token)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await self.owners(thingID, socket: socket, token: alice.token) == ["user:" + alice.userID, "user:" + bob.userID])
        let bobsThings = try await self.unprivileged(["thing", "owned", "--json"], socket: socket, token: bob.token)
        #expect(bobsThings.stdout.contains(thingID), "\(bobsThings.stdout)")
        let again = try await self.unprivileged(
            ["thing", "add-owner", "--thing", thingID, "--owner", "user:" + bob.userID],
            socket: socket,
            token: bob.token
        )
        #expect(again.status == 1 && again.stderr.contains("THING_OWNERSHIP_ALREADY_EXISTS"), "\(again.stderr)")
        let notHers = try await self.unprivileged(
            ["thing", "remove-owner", "--thing", thingID, "--owner", "user:" + bob.userID],
            socket: socket,
            token: alice.token
        )
        #expect(notHers.status == 5, "\(notHers.stderr)")

        // Bob removes himself (the default owner), and loses access.
        let left = try await self.unprivileged(["thing", "remove-owner", "--thing", thingID], socket: socket, token: bob.token)
        #expect(left.status == 0, "\(left.stderr)")
        #expect(try await self.owners(thingID, socket: socket, token: alice.token) == ["user:" + alice.userID])
        let gone = try await self.unprivileged(["thing", "state", "--thing", thingID], socket: socket, token: bob.token)
        #expect(gone.status == 5, "\(gone.stderr)")

        // States with their timestamps; history in upload order, --limit and --from narrowing it.
        for (power, time) in [(1, 1_000), (2, 2_000), (3, 3_000)] {
            let put = try await self.unprivileged(
                ["thing", "put-state", "--thing", thingID, "--state", "{\"power\":\(power)}", "--timestamp", "\(time)", "--json"],
                socket: socket,
                token: thingToken
            )
            #expect(try self.json(put.stdout)["created"] as? Bool == (power == 1), "\(put.stdout) \(put.stderr)")
        }
        let latest = try self.json(
            try await self.unprivileged(["thing", "state", "--thing", thingID, "--json"], socket: socket, token: alice.token).stdout
        )
        #expect((latest["state"] as? [String: Any])?["power"] as? Int == 3)
        let history = try await self.unprivileged(
            ["thing", "history", "--thing", thingID, "--from", "2000", "--json"],
            socket: socket,
            token: alice.token
        )
        let states = try #require(try self.json(history.stdout)["results"] as? [[String: Any]])
        #expect(states.map { ($0["state"] as? [String: Any])?["power"] as? Int } == [2, 3])
        let first = try await self.unprivileged(
            ["thing", "history", "--thing", thingID, "--limit", "1", "--json"],
            socket: socket,
            token: alice.token
        )
        #expect((try self.json(first.stdout)["results"] as? [Any])?.count == 1)
        let big = try await self.unprivileged(
            ["thing", "put-state", "--thing", thingID, "--state", "{\"blob\":\"\(String(repeating: "x", count: 11_000))\"}"],
            socket: socket,
            token: thingToken
        )
        #expect(big.status == 1 && big.stderr.contains("STATE_TOO_LARGE"), "\(big.stderr)")
    }

    @Test func agentRunsAScriptPerCommandAndPostsItsOutcomesInOrder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket
        let owner = try await self.register("olga", socket: socket)
        let environment = ["XDG_CONFIG_HOME": scratch.path + "/config", "GUILD_TOKEN": "", "GUILD_PROFILE": ""]

        // Onboarding with --save keeps the thing's token as profile "fan" (and does not print it).
        let onboarded = try await Child.run(
            Build.guildctl,
            ["thing", "onboard", "--vendor-thing-id", "fan-9", "--password", "pw", "--save", "fan", "--socket", socket, "--token", owner.token],
            environment: environment
        )
        #expect(onboarded.status == 0 && onboarded.stdout.contains("profile fan"), "\(onboarded.stderr)")
        #expect(!onboarded.stdout.contains("accessToken"), "\(onboarded.stdout)")
        let thingID = try #require(onboarded.stdout.split(separator: "\n").last?.split(separator: " ").last.map(String.init))
        let whoami = try await Child.run(Build.guildctl, ["--profile", "fan", "whoami", "--json", "--socket", socket], environment: environment)
        #expect(try self.json(whoami.stdout)["thingID"] as? String == thingID, "\(whoami.stdout) \(whoami.stderr)")

        // Three commands, sent before the agent starts: it runs them oldest first.
        func send(_ actions: [String]) async throws -> String {
            let sent = try await self.guildctl(
                ["command", "send", "--thing", thingID, "--json"] + actions.flatMap { ["--action", $0] },
                socket: socket,
                token: owner.token
            )
            return try #require(try self.json(sent.stdout)["commandID"] as? String, "\(sent.stderr)")
        }
        let works = try await send([#"turnPower={"power":true}"#, "setSpeed=3"])
        let fails = try await send(["spin", "wobble"])
        let reports = try await send(["measure", "calibrate"])
        let log = scratch.path + "/agent.log"
        let script = scratch.path + "/handle.sh"
        try """
        read -r input
        echo "$GUILD_COMMAND_ID $GUILD_THING_ID $GUILD_ACTIONS" >> \(log)
        case "$input" in
          *'"spin"'*) echo "motor stalled" >&2; exit 1 ;;
          *'"measure"'*) echo '[{"measure":{"succeeded":true,"data":{"rpm":1200}}},{"calibrate":{"succeeded":false,"errorMessage":"no sensor"}}]' ;;
        esac
        exit 0
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let agent = try await Child.run(
            Build.guildctl,
            ["--profile", "fan", "thing", "agent", "--thing", thingID, "--count", "3", "--exec", "sh " + script, "--socket", socket],
            environment: environment
        )
        #expect(agent.status == 0, "\(agent.stderr)")
        #expect(agent.stdout == "\(works) DONE\n\(fails) INCOMPLETE\n\(reports) INCOMPLETE\n")
        #expect(agent.stderr.contains("motor stalled"), "CMD's stderr is passed through: \(agent.stderr)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == [works, fails, reports].map { "\($0) \(thingID)" })
        #expect(lines.first?.hasSuffix(#"[{"turnPower":{"power":true}},{"setSpeed":3}]"#) == true, "\(lines)")

        func results(_ commandID: String) async throws -> (state: String?, results: [(String, [String: Any])]) {
            let got = try await self.guildctl(
                ["command", "get", "--thing", thingID, "--command-id", commandID, "--json"],
                socket: socket,
                token: owner.token
            )
            let command = try self.json(got.stdout)
            let results = (command["actionResults"] as? [[String: [String: Any]]] ?? []).compactMap { $0.first.map { ($0.key, $0.value) } }
            return (command["commandState"] as? String, results)
        }
        let done = try await results(works)
        #expect(done.state == "DONE")
        #expect(done.results.map(\.0) == ["turnPower", "setSpeed"] && done.results.allSatisfy { $0.1["succeeded"] as? Bool == true })
        let failed = try await results(fails)
        #expect(failed.state == "INCOMPLETE")
        #expect(failed.results.map(\.0) == ["spin", "wobble"])
        #expect(
            failed.results.allSatisfy { $0.1["succeeded"] as? Bool == false && $0.1["errorMessage"] as? String == "exit status 1: motor stalled" }
        )
        let reported = try await results(reports)
        #expect(reported.state == "INCOMPLETE")
        #expect(reported.results.map(\.0) == ["measure", "calibrate"])
        #expect((reported.results.first?.1["data"] as? [String: Any])?["rpm"] as? Int == 1200)
        #expect(reported.results.last?.1["errorMessage"] as? String == "no sensor")

        // A later command, answered by a script that ignores its stdin and exits 1 without a word.
        let silent = try await send(["ping"])
        let quiet = try await self.guildctl(
            ["thing", "agent", "--thing", thingID, "--count", "1", "--exec", "exit 1"],
            socket: socket,
            token: try #require(self.savedToken(scratch, profile: "fan"))
        )
        #expect(quiet.status == 0 && quiet.stdout == "\(silent) INCOMPLETE\n", "\(quiet.stderr)")
        #expect(try await results(silent).results.first?.1["errorMessage"] as? String == "exit status 1")
        let list = try await self.guildctl(["command", "list", "--thing", thingID, "--limit", "2", "--json"], socket: socket, token: owner.token)
        #expect((try self.json(list.stdout)["commands"] as? [[String: Any]])?.compactMap { $0["commandID"] as? String } == [silent, reports])

        // The thing's profile logs out by forgetting the token.
        let logout = try await Child.run(Build.guildctl, ["--profile", "fan", "logout", "--socket", socket], environment: environment)
        #expect(logout.status == 0 && logout.stdout.contains("Forgot thing fan-9"), "\(logout.stderr)")
        #expect(try self.savedToken(scratch, profile: "fan") == nil)
    }

    /// The token a profile keeps in the scratch directory's credentials file.
    func savedToken(_ scratch: Scratch, profile: String) throws -> String? {
        let data = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/config/guild/credentials.json"))
        let contents = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let logins = (contents["profiles"] as? [String: Any])?[profile] as? [String: [String: Any]]
        return logins?.values.first?["accessToken"] as? String
    }

    @Test func agentStopsCleanlyOnSIGINTAndWhenTheDaemonGoes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket
        let owner = try await self.register("omar", socket: socket)
        let onboarded = try await self.guildctl(
            ["thing", "onboard", "--vendor-thing-id", "door-1", "--password", "pw", "--json"],
            socket: socket,
            token: owner.token
        )
        let thing = try self.json(onboarded.stdout)
        let thingID = try #require(thing["thingID"] as? String)
        let thingToken = try #require(thing["accessToken"] as? String)
        let sent = try await self.guildctl(["command", "send", "--thing", thingID, "--action", "open", "--json"], socket: socket, token: owner.token)
        let commandID = try #require(try self.json(sent.stdout)["commandID"] as? String)

        // SIGINT while CMD runs: exit 0 at once, CMD (and what it started) stopped, the command unanswered.
        let marker = scratch.path + "/running"
        let agent = try await Child(
            Build.guildctl,
            [
                "thing", "agent", "--thing", thingID, "--exec",
                "trap 'echo term > \(marker).term; exit 0' TERM; touch \(marker); sleep 30 & wait; echo late > \(marker)",
                "--socket", socket,
            ],
            environment: ["GUILD_TOKEN": thingToken]
        )
        defer { agent.terminate() }
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: marker), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(FileManager.default.fileExists(atPath: marker), "\(agent.stderr)")
        agent.signal(SIGINT)
        #expect(await agent.wait() == 0, "\(agent.stderr)")
        // Stopped with SIGTERM, which CMD's trap saw (SIGKILL after the grace period leaves no trace), and never
        // let run to its end.
        #expect((try? String(contentsOfFile: marker + ".term", encoding: .utf8)) == "term\n")
        #expect((try? String(contentsOfFile: marker, encoding: .utf8)) == "")
        #expect(agent.stdout.isEmpty)
        let pending = try self.json(
            try await self.guildctl(["command", "get", "--thing", thingID, "--command-id", commandID, "--json"], socket: socket, token: owner.token)
                .stdout
        )
        #expect(pending["actionResults"] == nil && pending["commandState"] as? String != "DONE", "\(pending)")

        // The next start runs it again; then, idle, the agent exits 69 when the daemon goes away.
        let next = try await Child(
            Build.guildctl,
            ["thing", "agent", "--thing", thingID, "--exec", "true", "--socket", socket],
            environment: ["GUILD_TOKEN": thingToken]
        )
        defer { next.terminate() }
        let answered = Date().addingTimeInterval(60)
        while next.stdout.isEmpty, Date() < answered { try await Task.sleep(for: .milliseconds(20)) }
        #expect(next.stdout == "\(commandID) DONE\n", "\(next.stderr)")
        daemon.signal(SIGTERM)
        #expect(await next.wait() == 69)
        #expect(next.stderr.contains("the connection to guildd was closed"), "\(next.stderr)")
        try await Task.sleep(for: .milliseconds(100))
        #expect((try? String(contentsOfFile: marker, encoding: .utf8)) == "", "the interrupted CMD never finished")
    }
}
