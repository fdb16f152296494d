import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One thing that uploads large states without end, as an unprivileged local user (uid 65534): issue 39 saw
/// 4,568 uploads/s of 10 KB grow the database by 113 MB/s, each upload kept as a state row and again as the
/// `thingStateChanged` event's body (kept up to a million events). The history is now bounded per thing
/// (`--state-history-count`, `--state-history-days`) and the logged event names its state instead of holding it.
@Suite(.endToEnd, .enabled(if: getuid() == 0, "needs root to run a client as another uid"))
struct ThingStorageTests {
    static let script = #"""
        uploads = int(sys.argv[3])
        alice = user("alice")
        alice_id = alice.user_id
        ob = alice.call("thing.onboard", {"vendorThingID": "box-1", "thingPassword": "pw", "owner": "user:" + alice_id})
        tid = ob["thingID"]
        thing = GuildClient(S, timeout=120); thing.authenticate(ob["accessToken"])
        pad = "x" * 10150  # with its key and "v", just under the 10,240-byte state limit
        # A live event carries the state.
        live = alice.subscribe(kinds=["thingStateChanged"])
        thing.call("thing.putState", {"thingID": tid, "state": {"v": -1, "pad": pad}})
        first = live.next_event(timeout=30)
        report["liveState"] = [first["state"]["v"], len(first["state"]["pad"])]
        live.unsubscribe()
        sent, batch = 0, 50
        while sent < uploads:
            n = min(batch, uploads - sent)
            replies = thing.batch([("thing.putState", {"thingID": tid, "state": {"v": sent + i, "pad": pad}}) for i in range(n)])
            bad = [r for r in replies if isinstance(r, GuildError)]
            if bad:
                report["uploadError"] = [bad[0].code, (bad[0].data or {}).get("reason")]
                break
            sent += n
        report["sent"] = sent
        # Other users' writes keep working.
        bob = user("bob")
        report["bobWrite"] = "objectID" in bob.call("object.create", {"scope": "user:" + bob.user_id, "bucket": "notes", "body": {"ok": True}})
        # The history is bounded; its newest state is from the last batch (a batch's calls run concurrently).
        count, key = 0, None
        while True:
            params = {"thingID": tid, "limit": 1000}
            if key: params["paginationKey"] = key
            page = alice.call("thing.stateHistory", params)
            count += len(page["results"])
            newest = page["results"][-1]["state"]["v"] if page["results"] else None
            key = page.get("nextPaginationKey")
            if not key: break
        report["historyCount"] = count
        report["historyNewest"] = newest
        # A replay reads a state back from the history while it is kept; an event whose state the history
        # dropped says so with "state": null.
        replay = alice.subscribe(kinds=["thingStateChanged"], since=first["seq"] - 1)
        replayed = replay.next_event(timeout=30)
        report["replayFirst"] = [replayed["seq"] == first["seq"], replayed["state"]]
        replay.unsubscribe()
        head = alice.call("system.health", {})["seq"]
        recent = alice.subscribe(kinds=["thingStateChanged"], since=head - 20)
        report["replayRecent"] = recent.next_event(timeout=30)["state"]["v"]
        print(json.dumps(report))
        """#

    @Test func twentyThousandLargeStatesKeepTheDatabaseSmall() async throws {
        var onDisk = 0
        let report = try await UnprivilegedPython.report(Self.script, arguments: ["20000"]) { scratch in
            onDisk = [scratch.database, scratch.database + "-wal"].reduce(0) { sum, path in
                sum + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
            }
        }
        print("ThingStorageTests: after 20,000 uploads of 10 KB the database and WAL hold \(onDisk / 1_048_576) MiB")
        #expect(report["uploadError"] == nil, "\(report["uploadError"] ?? "")")
        #expect(report["sent"] as? Int == 20_000)
        // 20,000 uploads of 10 KB were 400 MB (state rows and event bodies) before; now the 1,000 newest states
        // (10 MB) and 20,000 small events (50,000 held 34-36 MiB; 20,000 keep the test within its time limit on
        // two busy CPUs). (On PostgreSQL the scratch holds no database: the rest applies.)
        if !TestEngine.isPostgreSQL {
            #expect(onDisk > 0 && onDisk < 100 * 1024 * 1024, "the database and WAL hold \(onDisk / 1_048_576) MiB")
        }
        #expect(report["bobWrite"] as? Bool == true)
        #expect(report["historyCount"] as? Int == 1_000, "--state-history-count's default")
        #expect((report["historyNewest"] as? Int ?? 0) >= 19_950)
        #expect(report["liveState"] as? [Int] == [-1, 10_150])
        let replayFirst = try #require(report["replayFirst"] as? [Any])
        #expect(replayFirst.first as? Bool == true)
        #expect(replayFirst.last is NSNull, "the first state is no longer in the history: the replayed event says so")
        #expect((report["replayRecent"] as? Int ?? 0) > 19_000, "a kept state is replayed with its event")
    }
}
