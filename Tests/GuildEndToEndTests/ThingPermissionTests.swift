import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Things' permission rules as unprivileged local users (uid 65534; root is always an admin): a thing's
/// token on user-only methods, a non-owner, a group owner whose member sends and then leaves, the seed's
/// result-push rule with two installations of a normal user and of a pseudo user (each on its own
/// connection, live), and bad input with real malformed bytes, none of which disturbs the connection.
@Suite(.endToEnd, .enabled(if: getuid() == 0, "needs root to run a client as another uid"))
struct ThingPermissionTests {
    static let script = #"""
        import queue, socket, time

        def kinds(sub, wait=0.6):
            got = []
            end = time.time() + wait
            while time.time() < end:
                try:
                    got.append(sub.next_event(timeout=0.1)["kind"])
                except queue.Empty:
                    pass
            return got

        alice, member, stranger = user("alice"), user("member"), user("stranger")
        alice_id, member_id, stranger_id = alice.user_id, member.user_id, stranger.user_id
        ob = alice.call("thing.onboard", {"vendorThingID": "lamp-9", "thingPassword": "pw", "owner": "user:" + alice_id})
        tid = ob["thingID"]
        thing = GuildClient(S)
        report["whoami"] = thing.authenticate(ob["accessToken"])
        report["thingUserOnly"] = err(lambda: thing.call("group.create", {"groupID": "tg", "name": "x"}))
        report["thingProfile"] = err(lambda: thing.call("user.update", {"displayName": "x"}))
        report["thingInstallation"] = err(lambda: thing.call("installation.register", {"deviceType": "MQTT"}))
        report["thingOwnGet"] = thing.call("thing.get", {"thingID": tid})["thingID"] == tid
        report["strangerGet"] = err(lambda: stranger.call("thing.get", {"thingID": tid}))
        cmd = {"thingID": tid, "actions": [{"turnPower": {"power": True}}], "schema": "SmartLight", "schemaVersion": 1}
        report["strangerSend"] = err(lambda: stranger.call("command.send", dict(cmd, issuer="user:" + stranger_id)))
        report["strangerAsAlice"] = err(lambda: stranger.call("command.send", dict(cmd, issuer="user:" + alice_id)))
        report["wrongPassword"] = err(lambda: stranger.call("thing.onboard", {"vendorThingID": "lamp-9", "thingPassword": "nope", "owner": "user:" + stranger_id}))

        # A group owner: its member sends; once removed, refused at once.
        alice.call("group.create", {"groupID": "home", "name": "Home", "members": [member_id]})
        member.call("thing.addOwner", {"thingID": tid, "owner": "group:home"})
        report["memberSend"] = "commandID" in member.call("command.send", dict(cmd, issuer="group:home"))
        report["memberOwned"] = [t["thingID"] for t in member.call("user.ownedThings", {})["things"]] == [tid]
        alice.call("group.removeMembers", {"groupID": "home", "userIDs": [member_id]})
        report["leftSend"] = err(lambda: member.call("command.send", dict(cmd, issuer="group:home")))
        report["leftOwned"] = member.call("user.ownedThings", {})["things"]

        # Result pushes: alice (a normal user) on two devices, a pseudo user on two devices.
        phone = GuildClient(S); phone.authenticate(alice.call("user.login", {"username": "alice", "password": "pw-alice"})["accessToken"])
        tablet = GuildClient(S); tablet.authenticate(alice.call("user.login", {"username": "alice", "password": "pw-alice"})["accessToken"])
        phone.call("installation.register", {"deviceType": "ANDROID", "installationRegistrationID": "phone"})
        tablet.call("installation.register", {"deviceType": "IOS", "installationRegistrationID": "tablet"})
        bare = GuildClient(S); bare.authenticate(alice.call("user.login", {"username": "alice", "password": "pw-alice"})["accessToken"])
        p1 = GuildClient(S); pr = p1.call("user.registerPseudo", {}); p1.authenticate(pr["accessToken"]); pid = pr["user"]["userID"]
        p2 = GuildClient(S); p2.authenticate(pr["accessToken"])
        p1.call("installation.register", {"deviceType": "ANDROID", "installationRegistrationID": "p1"})
        p2.call("installation.register", {"deviceType": "ANDROID", "installationRegistrationID": "p2"})
        thing.call("thing.addOwner", {"thingID": tid, "owner": "user:" + pid})
        subs = {name: c.subscribe() for name, c in [("phone", phone), ("tablet", tablet), ("bare", bare), ("p1", p1), ("p2", p2)]}
        tsub = thing.call("events.subscribe", {"thingIDs": [tid], "kinds": ["commandReceived"]})
        a = phone.call("command.send", dict(cmd, issuer="user:" + alice_id))["commandID"]
        p = p1.call("command.send", dict(cmd, issuer="user:" + pid))["commandID"]
        for c in (a, p):
            thing.call("command.putResults", {"thingID": tid, "commandID": c, "actionResults": [{"turnPower": {"succeeded": True}}]})
        report["pushes"] = {name: kinds(sub).count("commandResult") for name, sub in subs.items()}

        # Bad input, on one connection that keeps working.
        report["actionsNotList"] = err(lambda: alice.call("command.send", dict(cmd, issuer="user:" + alice_id, actions="turnPower")))
        report["actionTwoKeys"] = err(lambda: alice.call("command.send", dict(cmd, issuer="user:" + alice_id, actions=[{"a": 1, "b": 2}])))
        report["stateNotObject"] = err(lambda: thing.call("thing.putState", {"thingID": tid, "state": [1, 2]}))
        report["stateTooLarge"] = err(lambda: thing.call("thing.putState", {"thingID": tid, "state": {"x": "y" * 11000}}))
        report["unknownThing"] = err(lambda: alice.call("thing.get", {"thingID": "th.0000"}))
        report["resultsByOwner"] = err(lambda: alice.call("command.putResults", {"thingID": tid, "commandID": a, "actionResults": []}))
        raw = socket.socket(socket.AF_UNIX); raw.connect(S)
        raw.sendall(b'{"jsonrpc":"2.0","id":1,"method":"thing.putState","params":{"thingID":"' + tid.encode() + b'","state":{"a":\xff}}}\n'
                    + b'{"jsonrpc":"2.0","id":2,"method":"command.send","params":{"thingID":' + b'[' * 200 + b'}}\n'
                    + b'{"jsonrpc":"2.0","id":3,"method":"system.ping"}\n')
        buf = b""
        while buf.count(b"\n") < 3:
            chunk = raw.recv(65536)
            if not chunk: break
            buf += chunk
        report["raw"] = [json.loads(line) for line in buf.split(b"\n") if line]
        report["stillAlive"] = err(lambda: alice.call("thing.getState", {"thingID": tid}))
        report["commands"] = len(alice.call("command.list", {"thingID": tid})["commands"])
        print(json.dumps(report))
        """#

    @Test func thingRulesHoldForAnUnprivilegedClient() async throws {
        let report = try await UnprivilegedPython.report(Self.script)
        // The code and reason of a call's error.
        func error(_ key: String) -> [AnyHashable]? { UnprivilegedPython.refusal(report[key]).map { Array($0.prefix(2)) } }
        let denied: [AnyHashable] = [40301, "PERMISSION_DENIED"]

        let whoami = try #require(report["whoami"] as? [String: Any])
        #expect(whoami["thingID"] as? String != nil && whoami["user"] == nil && whoami["admin"] as? Bool == false)
        #expect(error("thingUserOnly") == denied)
        #expect(error("thingProfile") == denied)
        #expect(error("thingInstallation") == denied)
        #expect(report["thingOwnGet"] as? Bool == true)
        #expect(error("strangerGet") == denied)
        #expect(error("strangerSend") == denied)
        #expect(error("strangerAsAlice") == denied)
        #expect(error("wrongPassword") == [40102, "INVALID_CREDENTIALS"])
        #expect(report["memberSend"] as? Bool == true)
        #expect(report["memberOwned"] as? Bool == true)
        #expect(error("leftSend") == denied)
        #expect((report["leftOwned"] as? [Any])?.isEmpty == true)
        let pushes = try #require(report["pushes"] as? [String: Int])
        #expect(
            pushes == ["phone": 1, "tablet": 1, "bare": 0, "p1": 1, "p2": 0],
            "seed 001: all of a normal user's installations, the sending one of a pseudo user"
        )
        #expect(error("actionsNotList") == [-32602, "INVALID_PARAMS"])
        #expect(error("actionTwoKeys") == [-32602, "INVALID_INPUT_DATA"])
        #expect(error("stateNotObject") == [-32602, "INVALID_PARAMS"])
        #expect(error("stateTooLarge") == [41302, "STATE_TOO_LARGE"])
        #expect(error("unknownThing") == [40408, "THING_NOT_FOUND"])
        #expect(error("resultsByOwner") == denied)
        let raw = try #require(report["raw"] as? [[String: Any]])
        #expect(raw.count == 3)
        #expect(((raw.first?["error"] as? [String: Any])?["code"] as? Int) == -32700)
        #expect(raw.last?["result"] != nil, "the connection answers after malformed lines")
        #expect(error("stillAlive") == [40411, "STATE_NOT_FOUND"], "no state was half-written")
        #expect(report["commands"] as? Int == 3)
    }
}
