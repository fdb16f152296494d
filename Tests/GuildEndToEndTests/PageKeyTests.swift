import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Paging keys as an unprivileged local user (uid 65534) would attack them: issue 39's reproduction, where Bob,
/// who may query Alice's bucket but read none of it, got the sort value of her last object scanned in the key
/// and had made-up keys honoured as seek positions. Keys are now sealed for their caller and query.
@Suite(.endToEnd, .enabled(if: getuid() == 0, "needs root to run a client as another uid"))
struct PageKeyTests {
    static let script = #"""
        import base64

        def b64(raw):
            return base64.urlsafe_b64encode(raw).decode().rstrip("=")

        def unb64(text):
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

        alice, bob, carol = user("alice"), user("bob"), user("carol")
        alice_id, bob_id, carol_id = alice.user_id, bob.user_id, carol.user_id
        scope = "user:" + alice_id
        # More objects than one page scans (5,000), so a query that finds nothing still hands out a key.
        for i in range(5200):
            alice.call("object.create", {"scope": scope, "bucket": "vault", "body": {"ssn": "SSN-%06d" % i}})
        alice.call("acl.grant", {"scope": scope, "bucket": "vault", "entries": [
            {"action": "QUERY_OBJECTS_IN_BUCKET", "subject": "UserID:" + bob_id},
            {"action": "QUERY_OBJECTS_IN_BUCKET", "subject": "UserID:" + carol_id}]})
        query = {"scope": scope, "bucket": "vault", "orderBy": "ssn", "limit": 1}
        page = bob.call("object.query", query)
        key = page.get("nextPaginationKey")
        report["bobResults"] = len(page["results"])
        report["bobHasKey"] = key is not None
        raw = unb64(key) if key else b""
        report["keyShowsValue"] = b"SSN" in raw
        report["keyIsJSON"] = True
        try:
            json.loads(raw)
        except Exception:
            report["keyIsJSON"] = False
        # The key continues Bob's own query.
        report["bobNext"] = err(lambda: bob.call("object.query", dict(query, paginationKey=key)))
        # Made up, as in the issue: a seek position of Bob's choosing.
        forged = b64(json.dumps([0, "SSN-000321"]).encode())
        report["forged"] = err(lambda: bob.call("object.query", dict(query, paginationKey=forged)))
        report["forgedNumber"] = err(lambda: bob.call("object.query", dict(query, paginationKey=b64(b"[1042]"))))
        # Tampered: one bit of the real key flipped.
        flipped = bytearray(raw); flipped[len(flipped) // 2] ^= 1
        report["tampered"] = err(lambda: bob.call("object.query", dict(query, paginationKey=b64(bytes(flipped)))))
        # Another user, and other queries, with Bob's key.
        report["carol"] = err(lambda: carol.call("object.query", dict(query, paginationKey=key)))
        report["descending"] = err(lambda: bob.call("object.query", dict(query, descending=True, paginationKey=key)))
        report["otherOrder"] = err(lambda: bob.call("object.query", {"scope": scope, "bucket": "vault", "limit": 1, "paginationKey": key}))
        report["otherClause"] = err(lambda: bob.call("object.query", dict(query, clause={"type": "prefix", "field": "ssn", "prefix": "SSN-0"}, paginationKey=key)))
        # Alice pages through everything with the keys she is handed: each object once.
        seen, next_key = [], None
        while True:
            params = {"scope": scope, "bucket": "vault", "orderBy": "ssn", "limit": 500}
            if next_key: params["paginationKey"] = next_key
            page = alice.call("object.query", params)
            seen += [o["ssn"] for o in page["results"]]
            next_key = page.get("nextPaginationKey")
            if not next_key: break
        report["alicePaged"] = [len(seen), len(set(seen))]
        report["aliceSorted"] = seen == sorted(seen)

        # Thing commands and states: keys bound to the caller and the thing.
        ob = alice.call("thing.onboard", {"vendorThingID": "lamp-1", "thingPassword": "pw", "owner": "user:" + alice_id})
        tid = ob["thingID"]
        thing = GuildClient(S); thing.authenticate(ob["accessToken"])
        cmd = {"thingID": tid, "actions": [{"turnPower": {"power": True}}], "issuer": "user:" + alice_id, "schema": "SmartLight", "schemaVersion": 1}
        for _ in range(3):
            alice.call("command.send", cmd)
            thing.call("thing.putState", {"thingID": tid, "state": {"power": True}})
        cpage = alice.call("command.list", {"thingID": tid, "limit": 1})
        ckey = cpage["nextPaginationKey"]
        report["commandKeyPlain"] = ckey.isdigit()
        report["commandNext"] = len(alice.call("command.list", {"thingID": tid, "limit": 1, "paginationKey": ckey})["commands"])
        report["commandForged"] = err(lambda: alice.call("command.list", {"thingID": tid, "limit": 1, "paginationKey": "1"}))
        report["commandByThing"] = err(lambda: thing.call("command.list", {"thingID": tid, "limit": 1, "paginationKey": ckey}))
        spage = alice.call("thing.stateHistory", {"thingID": tid, "limit": 1})
        skey = spage["nextPaginationKey"]
        report["stateNext"] = len(alice.call("thing.stateHistory", {"thingID": tid, "limit": 1, "paginationKey": skey})["results"])
        report["stateOtherRange"] = err(lambda: alice.call("thing.stateHistory", {"thingID": tid, "limit": 1, "from": 0, "paginationKey": skey}))
        report["stateCommandKey"] = err(lambda: alice.call("thing.stateHistory", {"thingID": tid, "limit": 1, "paginationKey": ckey}))
        print(json.dumps(report))
        """#

    @Test func pagingKeysRevealNothingAndOnlyServeTheirOwnQuery() async throws {
        let report = try await UnprivilegedPython.report(Self.script)
        func error(_ key: String) -> [AnyHashable]? { UnprivilegedPython.refusal(report[key]) }
        let refused: [AnyHashable] = [-32602, "INVALID_INPUT_DATA", "paginationKey"]

        #expect(report["bobResults"] as? Int == 0, "Bob may read none of Alice's objects")
        #expect(report["bobHasKey"] as? Bool == true, "a page that scanned its budget has a next page")
        #expect(report["keyShowsValue"] as? Bool == false, "the key holds no value of Alice's")
        #expect(report["keyIsJSON"] as? Bool == false)
        #expect(report["bobNext"] is NSNull, "Bob's key continues Bob's query: \(report["bobNext"] ?? "")")
        for attack in ["forged", "forgedNumber", "tampered", "carol", "descending", "otherOrder", "otherClause"] {
            #expect(error(attack) == refused, "\(attack): \(report[attack] ?? "nil")")
        }
        #expect(report["alicePaged"] as? [Int] == [5200, 5200], "every object once")
        #expect(report["aliceSorted"] as? Bool == true)
        #expect(report["commandKeyPlain"] as? Bool == false, "a command key is no bare row position")
        #expect(report["commandNext"] as? Int == 1)
        #expect(error("commandForged") == refused)
        #expect(error("commandByThing") == refused, "a key is the caller's own")
        #expect(report["stateNext"] as? Int == 1)
        #expect(error("stateOtherRange") == refused)
        #expect(error("stateCommandKey") == refused)
    }
}
