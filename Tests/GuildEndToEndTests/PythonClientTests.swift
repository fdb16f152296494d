import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The stdlib Python client against a real daemon, as root (admin) and as an unprivileged peer.
@Suite(.endToEnd)
struct PythonClientTests {
    static let clientDirectory = UnprivilegedPython.clientDirectory

    @Test func pythonTestSuitePassesAgainstTheDaemon() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let result = try await Child.run(
            "/usr/bin/env",
            ["python3", "-m", "unittest", "-v"],
            environment: ["GUILD_SOCKET": scratch.socket],
            currentDirectory: Self.clientDirectory
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("skipped="), "some tests were skipped: the live tests did not run")
        let example = try await Child.run(
            "/usr/bin/env",
            ["python3", "example.py", "--socket", scratch.socket],
            currentDirectory: Self.clientDirectory
        )
        #expect(example.status == 0, "\(example.stdout)\(example.stderr)")
    }

    /// Admin rights come from the peer uid only: an unprivileged process cannot act on another user,
    /// whatever it sends; root can.
    @Test(.enabled(if: getuid() == 0, "needs root to run a client as another uid"))
    func adminRightsComeFromPeerCredentialsOnly() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"])
        defer { daemon.terminate() }
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[2])
            from guild_client import GuildClient, GuildError
            c = GuildClient(sys.argv[1])
            who = c.call("session.whoami")
            victim = c.call("user.registerPseudo", {})["user"]["userID"]
            me = GuildClient(sys.argv[1])
            me.call("user.registerPseudo", {"displayName": "attacker"})
            outcome = {"admin": who["admin"], "uid": who["peer"]["uid"]}
            try:
                me.call("user.delete", {"userID": victim, "admin": True})
                outcome["delete"] = "allowed"
            except GuildError as e:
                outcome["delete"] = e.reason
            try:
                me.call("events.subscribe", {"all": True})
                outcome["watchAll"] = "allowed"
            except GuildError as e:
                outcome["watchAll"] = e.reason
            print(json.dumps(outcome))
            """
        let asNobody = try await UnprivilegedPython.run(script, [scratch.socket, Self.clientDirectory])
        #expect(asNobody.status == 0, "\(asNobody.stderr)")
        let nobody = try #require(try JSONSerialization.jsonObject(with: Data(asNobody.stdout.utf8)) as? [String: Any])
        #expect(nobody["admin"] as? Bool == false)
        #expect(nobody["uid"] as? Int == 65534)
        #expect(nobody["delete"] as? String == "PERMISSION_DENIED")
        #expect(nobody["watchAll"] as? String == "PERMISSION_DENIED")

        let asRoot = try await UnprivilegedPython.run(script, [scratch.socket, Self.clientDirectory], uid: 0)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(asRoot.stdout.utf8)) as? [String: Any])
        #expect(root["admin"] as? Bool == true)
        #expect(root["delete"] as? String == "allowed")
        #expect(root["watchAll"] as? String == "allowed")
    }
}
