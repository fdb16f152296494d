import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 39, item 3, as an unprivileged local user (uid 65534) would try it: 100 triggers on one condition (the
/// most a thing may have) and a thing that uploads false, true, false, true... Before the bounds, each
/// false-to-true upload stored 100 commands. Now the triggers fire at most 10 times per thing in a rolling second,
/// a thing has at most 1,000 commands pending (`command.send` past it is `QUOTA_EXCEEDED`, with the limit and the
/// usage), and every firing past a bound is recorded in a `triggerSkipped` event to the owner. The assertions
/// hold however slowly the machine runs the script: the rate bounds the commands per upload, not per second.
@Suite(.endToEnd, .enabled(if: getuid() == 0, "needs root to run a client as another uid"))
struct TriggerAmplificationTests {
    /// The false-to-true uploads.
    static let transitions = 20

    static let script = #"""
        N = int(sys.argv[3])

        def refusal(fn):
            try:
                fn()
                return None
            except GuildError as e:
                data = e.data or {}
                return [e.code, data.get("reason"), data.get("limit"), data.get("usage")]

        alice = GuildClient(S, timeout=60)
        alice_id = alice.call("user.register", {"username": "alice", "password": "pw-alice"})["user"]["userID"]
        ob = alice.call("thing.onboard", {"vendorThingID": "lamp-amp", "thingPassword": "pw", "owner": "user:" + alice_id})
        tid = ob["thingID"]
        thing = GuildClient(S, timeout=60)
        thing.authenticate(ob["accessToken"])
        cmd = {"actions": [{"turnPower": {"power": True}}], "issuer": "user:" + alice_id, "schema": "SmartLight", "schemaVersion": 1}
        on = {"type": "eq", "field": "on", "value": True}
        triggers = [alice.call("trigger.create", {"thingID": tid, "condition": on, "command": cmd})["triggerID"] for _ in range(100)]
        sub = alice.subscribe(thing_ids=[tid])

        def put(state):
            thing.call("thing.putState", {"thingID": tid, "state": state})

        def flips(count, mark):
            """count false-to-true uploads, then a marked state; the owner's triggerSkipped events up to the mark."""
            for _ in range(count):
                put({"on": False})
                put({"on": True})
            put({"on": False, "mark": mark})
            skipped = []
            while True:
                event = sub.next_event(timeout=60)
                if event["kind"] == "triggerSkipped":
                    skipped.append({k: event.get(k) for k in ("triggerIDs", "reason", "limit")})
                elif event["kind"] == "thingStateChanged" and event.get("state", {}).get("mark") == mark:
                    return skipped

        def commands():
            found, key = [], None
            while True:
                params = {"thingID": tid, "limit": 100}
                if key:
                    params["paginationKey"] = key
                page = alice.call("command.list", params)
                found += page["commands"]
                key = page.get("nextPaginationKey")
                if not key:
                    return found

        # The uploads: every false-to-true one fires at most 10 triggers; the rest are recorded as skipped.
        report["skipped"] = flips(N, "flips")
        stored = commands()
        report["fired"] = sum(1 for c in stored if c.get("firedByTriggerID"))
        report["firedByKnownTriggers"] = all(c["firedByTriggerID"] in triggers for c in stored)

        # Fill the thing up to its pending bound with command.send, 200 a batch (stop at 5,000 if nothing refuses).
        sent, refused = 0, []
        while not refused and sent < 5000:
            replies = alice.batch([("command.send", dict(cmd, thingID=tid))] * 200)
            sent += sum(1 for r in replies if not isinstance(r, GuildError))
            refused = [[r.code, r.reason] for r in replies if isinstance(r, GuildError)]
        report["sent"] = sent
        report["batchRefusals"] = sorted(set(map(tuple, refused)))
        report["oneMore"] = refusal(lambda: alice.call("command.send", dict(cmd, thingID=tid)))

        # Full: a transition fires nothing, and is recorded.
        report["skippedWhenFull"] = flips(1, "full")
        report["storedWhenFull"] = len(commands())
        print(json.dumps(report))
        """#

    @Test func triggersFireWithinTheBoundsAndSkippedFiringsAreRecorded() async throws {
        let report = try await UnprivilegedPython.report(Self.script, arguments: [String(Self.transitions)])
        let triggers = 100
        let rate = 10
        let pendingLimit = 1000

        // The rate: at most 10 firings per upload however slowly they came (10 a rolling second), at least the
        // first upload's 10; before, 100 per upload (2,000).
        let fired = try #require(report["fired"] as? Int)
        #expect(fired >= rate && fired <= rate * Self.transitions, "fired \(fired)")
        #expect(report["firedByKnownTriggers"] as? Bool == true)
        // Every upload skipped at least 90, each recorded in one event to the owner; no firing was lost.
        let skipped = try #require(report["skipped"] as? [[String: Any]])
        #expect(skipped.count == Self.transitions)
        #expect(skipped.allSatisfy { $0["reason"] as? String == "firingRate" && $0["limit"] as? Int == rate })
        let skippedIDs = skipped.flatMap { $0["triggerIDs"] as? [String] ?? [] }
        #expect(fired + skippedIDs.count == triggers * Self.transitions)

        // The pending bound: command.send fills the thing up to 1,000 pending, then QUOTA_EXCEEDED with the data.
        let sent = try #require(report["sent"] as? Int)
        #expect(fired + sent == pendingLimit, "fired \(fired) + sent \(sent)")
        let quota: [AnyHashable] = [42902, "QUOTA_EXCEEDED"]
        #expect((report["batchRefusals"] as? [[Any]])?.map { $0.compactMap { $0 as? AnyHashable } } == [quota])
        let oneMore = (report["oneMore"] as? [Any])?.compactMap { $0 as? AnyHashable }
        #expect(oneMore == quota + [pendingLimit, pendingLimit])

        // Full: the triggers' firings are skipped for pending commands, recorded, and store nothing.
        let full = try #require(report["skippedWhenFull"] as? [[String: Any]])
        #expect(full.count == 1)
        #expect(full.first?["reason"] as? String == "pendingCommands" && full.first?["limit"] as? Int == pendingLimit)
        #expect((full.first?["triggerIDs"] as? [String])?.count == triggers)
        #expect(report["storedWhenFull"] as? Int == pendingLimit)
    }
}
