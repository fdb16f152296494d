import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 39, abuse by a local user: what one unprivileged local user (uid 65534, a Python client over the real
/// socket) can make a real daemon store or answer.
@Suite(.endToEnd, .enabled(if: getuid() == 0, "needs root to run a client as another uid"))
struct LocalUserAbuseTests {
    /// Runs `script` as uid 65534 against a fresh daemon, after ``UnprivilegedPython/clientPrelude``; returns
    /// the JSON object it prints.
    private func run(_ script: String) async throws -> [String: Any] {
        try await UnprivilegedPython.report(script)
    }

    /// What the installation scripts add to ``UnprivilegedPython/clientPrelude``: `register`.
    static let installationHelpers = #"""
        def register(client, count, prefix="r"):
            return [client.call("installation.register", {"deviceType": "ANDROID", "installationRegistrationID": "%s%d" % (prefix, i)})["installationID"]
                    for i in range(count)]

        """#

    static let installationCap =
        installationHelpers + #"""
            alice, bob = user("alice"), user("bob")
            ids = register(alice, 100)
            report["registered"] = len(set(ids))
            report["overCap"] = err(lambda: alice.call("installation.register", {"deviceType": "ANDROID", "installationRegistrationID": "r100"}))
            report["mqttOverCap"] = err(lambda: alice.call("installation.register", {"deviceType": "MQTT"}))
            again = alice.call("installation.register", {"deviceType": "ANDROID", "installationRegistrationID": "r7"})
            report["reRegisterSame"] = again["installationID"] == ids[7]
            report["bobUnaffected"] = len(register(bob, 1)) == 1
            report["stored"] = len(alice.call("installation.list")["installations"])
            alice.call("installation.delete", {"installationID": ids[0]})
            report["afterDelete"] = alice.call("installation.register", {"deviceType": "ANDROID", "installationRegistrationID": "r100"})["installationID"] not in ids
            print(json.dumps(report))
            """#

    /// One user gets at most 100 installations (`QUOTA_EXCEEDED` with the limit and usage, nothing stored);
    /// finding one they have still works at the cap, another user is not affected, and deleting one makes room.
    @Test func installationsAreCappedPerUser() async throws {
        let report = try await self.run(Self.installationCap)
        #expect(report["registered"] as? Int == 100)
        let over = report["overCap"] as? [String: Any]
        #expect(over != nil, "the 101st installation was accepted")
        #expect(over?["code"] as? Int == 42902)
        let data = over?["data"] as? [String: Any]
        #expect(data?["reason"] as? String == "QUOTA_EXCEEDED")
        #expect(data?["limit"] as? Int == 100)
        #expect(data?["usage"] as? Int == 100)
        #expect((over?["message"] as? String)?.contains("at most 100 installations") == true, "\(String(describing: over))")
        #expect(((report["mqttOverCap"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String == "QUOTA_EXCEEDED")
        #expect(report["reRegisterSame"] as? Bool == true, "registering a known installation at the cap finds it")
        #expect(report["bobUnaffected"] as? Bool == true, "the cap is per user")
        #expect(report["stored"] as? Int == 100, "nothing past the cap was stored")
        #expect(report["afterDelete"] as? Bool == true, "deleting one makes room")
    }

    static let installationPages =
        installationHelpers + #"""
            alice, bob = user("alice"), user("bob")
            ids = register(alice, 100)
            bobs_own = register(bob, 2, "b")
            whole = alice.call("installation.list")
            report["wholeCount"] = len(whole["installations"])
            report["wholeNext"] = whole.get("nextPaginationKey")
            listed = [i["installationID"] for i in whole["installations"]]
            report["wholeAreAlices"] = sorted(listed) == sorted(ids)
            pages, key = [], None
            while True:
                params = {"limit": 30}
                if key is not None:
                    params["paginationKey"] = key
                page = alice.call("installation.list", params)
                pages.append([i["installationID"] for i in page["installations"]])
                key = page.get("nextPaginationKey")
                if key is None or len(pages) > 10:
                    break
            report["pageSizes"] = [len(p) for p in pages]
            report["pagedAsListed"] = sum(pages, []) == listed
            # Keys are sealed for their caller: Alice's is no key for Bob.
            alices_key = alice.call("installation.list", {"limit": 1}).get("nextPaginationKey")
            report["bobWithAlicesKey"] = err(lambda: bob.call("installation.list", {"paginationKey": alices_key}))
            report["badKey"] = err(lambda: alice.call("installation.list", {"paginationKey": "not a key!"}))
            report["forgedKey"] = err(lambda: alice.call("installation.list", {"paginationKey": "bm90LWEta2V5"}))
            report["limitZero"] = err(lambda: alice.call("installation.list", {"limit": 0}))
            report["limitTooBig"] = err(lambda: alice.call("installation.list", {"limit": 101}))
            print(json.dumps(report))
            """#

    /// `installation.list` pages (`limit` 1-100, default 100: a caller that passes nothing gets all of a capped
    /// user's); a page lists only the caller's own, and a key the daemon did not make for the caller is
    /// `INVALID_INPUT_DATA` naming `paginationKey`.
    @Test func installationListIsPagedAndShowsOnlyTheCallersOwn() async throws {
        let report = try await self.run(Self.installationPages)
        #expect(report["wholeCount"] as? Int == 100)
        #expect(report["wholeNext"] is NSNull || report["wholeNext"] == nil)
        #expect(report["wholeAreAlices"] as? Bool == true)
        #expect(report["pageSizes"] as? [Int] == [30, 30, 30, 10])
        #expect(report["pagedAsListed"] as? Bool == true, "the pages are the whole list, in its order, each once")
        for key in ["badKey", "forgedKey", "bobWithAlicesKey"] {
            let error = report[key] as? [String: Any]
            #expect(error != nil, "\(key) was accepted")
            #expect(error?["code"] as? Int == -32602)
            #expect((error?["data"] as? [String: Any])?["reason"] as? String == "INVALID_INPUT_DATA")
            #expect((error?["data"] as? [String: Any])?["field"] as? String == "paginationKey")
        }
        for key in ["limitZero", "limitTooBig"] {
            let error = report[key] as? [String: Any]
            #expect((error?["data"] as? [String: Any])?["field"] as? String == "limit", "\(key): \(String(describing: error))")
        }
    }

    static let numbers = #"""
        import json, socket, sys
        S = sys.argv[1]
        s = socket.socket(socket.AF_UNIX)
        s.connect(S)
        s.settimeout(10)
        buf = b""

        def ask(line):
            global buf
            s.sendall(line + b"\n")
            while b"\n" not in buf:
                chunk = s.recv(65536)
                if not chunk:
                    raise SystemExit("closed")
                buf += chunk
            reply, buf = buf.split(b"\n", 1)
            return json.loads(reply)

        ask(b'{"jsonrpc":"2.0","id":0,"method":"user.registerPseudo","params":{}}')
        report = {}
        cases = {
            "membersLimit2p63": b'{"jsonrpc":"2.0","id":1,"method":"group.members","params":{"groupID":"g","limit":9223372036854775808}}',
            "membersLimit1e300": b'{"jsonrpc":"2.0","id":2,"method":"group.members","params":{"groupID":"g","limit":1e300}}',
            "membersLimitFraction": b'{"jsonrpc":"2.0","id":3,"method":"group.members","params":{"groupID":"g","limit":1.5}}',
            "membersCursorBelow": b'{"jsonrpc":"2.0","id":4,"method":"group.members","params":{"groupID":"g","cursor":-9223372036854775809}}',
            "commandsLimit2p63": b'{"jsonrpc":"2.0","id":5,"method":"command.list","params":{"thingID":"th.x","limit":9223372036854775808}}',
            "commandsLimitFraction": b'{"jsonrpc":"2.0","id":6,"method":"command.list","params":{"thingID":"th.x","limit":1.5}}',
            "queryLimit1e300": b'{"jsonrpc":"2.0","id":7,"method":"object.query","params":{"scope":"user","bucket":"b","limit":1e300}}',
            "queryLimitFraction": b'{"jsonrpc":"2.0","id":8,"method":"object.query","params":{"scope":"user","bucket":"b","limit":1.5}}',
            "historyCountBelow": b'{"jsonrpc":"2.0","id":9,"method":"group.history","params":{"groupID":"g","count":-1e300}}',
        }
        for name, line in cases.items():
            reply = ask(line)
            report[name] = reply.get("error")
        report["sumFraction"] = ask(b'{"jsonrpc":"2.0","id":10,"method":"sum","params":[1.5,2.25]}').get("result")
        report["wholeIntegerAsFraction"] = ask(b'{"jsonrpc":"2.0","id":11,"method":"group.members","params":{"groupID":"g","limit":1.0}}').get("error")
        print(json.dumps(report))
        """#

    /// An integer param of 2^63, 1e300 or below -2^63 is `NUMBER_OUT_OF_RANGE` and 1.5 is `INVALID_PARAMS`
    /// ("must be an integer"), both naming the field; before, all were "The given data was not valid JSON"
    /// with no field. Floating-point params still take fractions, and an integral `1.0` is still an integer.
    @Test func integerParamsThatDoNotFitNameTheField() async throws {
        let report = try await self.run(Self.numbers)
        let cases: [(String, String, String)] = [
            ("membersLimit2p63", "limit", "NUMBER_OUT_OF_RANGE"),
            ("membersLimit1e300", "limit", "NUMBER_OUT_OF_RANGE"),
            ("membersLimitFraction", "limit", "INVALID_PARAMS"),
            ("membersCursorBelow", "cursor", "NUMBER_OUT_OF_RANGE"),
            ("commandsLimit2p63", "limit", "NUMBER_OUT_OF_RANGE"),
            ("commandsLimitFraction", "limit", "INVALID_PARAMS"),
            ("queryLimit1e300", "limit", "NUMBER_OUT_OF_RANGE"),
            ("queryLimitFraction", "limit", "INVALID_PARAMS"),
            ("historyCountBelow", "count", "NUMBER_OUT_OF_RANGE"),
        ]
        for (name, field, reason) in cases {
            let error = try #require(report[name] as? [String: Any], "\(name): no error")
            let data = error["data"] as? [String: Any]
            #expect(error["code"] as? Int == -32602, "\(name): \(error)")
            #expect(data?["reason"] as? String == reason, "\(name): \(error)")
            #expect(data?["field"] as? String == field, "\(name): \(error)")
            let message = error["message"] as? String ?? ""
            #expect(!message.contains("not valid JSON"), "\(name): \(message)")
            #expect(
                message.contains(reason == "INVALID_PARAMS" ? "must be an integer" : "out of range") && message.contains(field),
                "\(name): \(message)"
            )
        }
        #expect(report["sumFraction"] as? Double == 3.75)
        let whole = report["wholeIntegerAsFraction"] as? [String: Any]
        #expect((whole?["data"] as? [String: Any])?["field"] as? String != "limit", "1.0 is an integer: \(String(describing: whole))")
    }

    static let mentions = #"""
        alice, bob = user("alice"), user("bob")
        alice_id, bob_id = alice.user_id, bob.user_id
        alice.call("group.create", {"name": "Team", "groupID": "team", "type": "Work", "members": [bob_id]})
        sub = bob.subscribe(group_ids=["team"], kinds=["newMessage"])
        alice.call("group.sendMessage", {"groupID": "team", "text": "hi", "atUserList": [bob_id] * 30})
        alice.call("group.sendMessage", {"groupID": "team", "text": "both", "atUserList": [bob_id, alice_id] * 15})
        delivered = [sub.next_event(timeout=5)["changes"].get("atUserList") for _ in range(2)]
        stored = [m.get("atUserList") for m in sorted(bob.call("group.history", {"groupID": "team"})["messages"], key=lambda m: m["seq"])]
        print(json.dumps({"bob": bob_id, "alice": alice_id, "delivered": delivered, "stored": stored}))
        """#

    /// `atUserList` with one user 30 times (the most entries it takes) is accepted, but stored and delivered
    /// with each user once, in order of first appearance.
    @Test func aRepeatedMentionIsStoredAndDeliveredOnce() async throws {
        let report = try await self.run(Self.mentions)
        let bob = try #require(report["bob"] as? String)
        let alice = try #require(report["alice"] as? String)
        #expect(report["delivered"] as? [[String]] == [[bob], [bob, alice]])
        #expect(report["stored"] as? [[String]] == [[bob], [bob, alice]])
    }
}
