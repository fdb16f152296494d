import Foundation
import GuildClient
import GuildProtocol
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 39, item 2: the per-owner storage quota, as an unprivileged local user (uid 65534, the Python client
/// over the real socket) meets it, and usage per area as an admin (root, guildctl and GuildClient) reads it.
@Suite(.endToEnd, .enabled(if: getuid() == 0, "needs root to run a client as another uid"))
struct StorageQuotaTests {
    static let quota = 20_000

    static let script = #"""
        alice, bob = user("alice"), user("bob")
        note = {"text": "n" * 900}
        def put(client, object_id, body=note, scope=None):
            return client.call("object.create", {"scope": scope or "user:" + client.user_id, "bucket": "notes",
                                                 "objectID": object_id, "body": body})
        stored = 0
        refused = None
        while refused is None and stored < 100:
            refused = err(lambda: put(alice, "n%d" % stored))
            if refused is None:
                stored += 1
        report["stored"] = stored
        report["refused"] = refused
        report["refusedIsAbsent"] = err(lambda: alice.call("object.get", {"scope": "user:" + alice.user_id, "bucket": "notes",
                                                                          "objectID": "n%d" % stored}))
        report["again"] = err(lambda: put(alice, "again"))
        report["grow"] = err(lambda: alice.call("object.replace", {"scope": "user:" + alice.user_id, "bucket": "notes",
                                                                  "objectID": "n0", "body": {"text": "g" * 5000}}))
        report["bob"] = err(lambda: put(bob, "b0"))
        report["bobApp"] = err(lambda: put(bob, "b1", scope="app"))
        alice.call("object.delete", {"scope": "user:" + alice.user_id, "bucket": "notes", "objectID": "n1"})
        report["afterDelete"] = err(lambda: put(alice, "again"))
        report["notAdmin"] = err(lambda: alice.call("system.storage"))
        report["alice"], report["bob_id"] = alice.user_id, bob.user_id
        print(json.dumps(report))
        """#

    /// Alice fills her quota with 900-character notes: the next is `QUOTA_EXCEEDED` with the limit and her
    /// usage, and is not stored; growing a note is refused too; Bob writes on; deleting a note makes room. An
    /// admin sees the usage per area and per owner (`system.storage`, `guildctl admin storage`, the
    /// `guild_storage_bytes` gauges) and `system.check` finds the kept usage equal to a recount.
    @Test func anOwnerPastTheQuotaIsRefusedAndAdminsSeeTheUsage() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666", "--storage-quota-bytes", "\(Self.quota)"])
        defer { daemon.terminate() }
        let run = try await UnprivilegedPython.run(
            UnprivilegedPython.clientPrelude + Self.script,
            [scratch.socket, UnprivilegedPython.clientDirectory]
        )
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")

        let stored = try #require(report["stored"] as? Int)
        #expect((15...21).contains(stored), "900-character notes stored under a 20,000-byte quota: \(stored)")
        let refused = try #require(report["refused"] as? [String: Any], "no write was refused")
        #expect(refused["code"] as? Int == 42902)
        let data = refused["data"] as? [String: Any] ?? [:]
        #expect(data["reason"] as? String == "QUOTA_EXCEEDED")
        #expect(data["limit"] as? Int == Self.quota)
        let usage = try #require(data["usage"] as? Int)
        #expect(usage <= Self.quota && usage > Self.quota - 1_000)
        #expect((refused["message"] as? String)?.contains("storage per owner") == true, "\(refused)")
        #expect(UnprivilegedPython.refusal(report["refusedIsAbsent"])?[1] == AnyHashable("OBJECT_NOT_FOUND"), "the refused note was not stored")
        #expect(UnprivilegedPython.refusal(report["again"])?[1] == AnyHashable("QUOTA_EXCEEDED"))
        #expect(UnprivilegedPython.refusal(report["grow"])?[1] == AnyHashable("QUOTA_EXCEEDED"))
        #expect(report["bob"] is NSNull, "another user is not held up: \(String(describing: report["bob"]))")
        #expect(report["bobApp"] is NSNull)
        #expect(report["afterDelete"] is NSNull, "deleting a note makes room: \(String(describing: report["afterDelete"]))")
        #expect(UnprivilegedPython.refusal(report["notAdmin"])?[1] == AnyHashable("PERMISSION_DENIED"))

        // As an admin: the usage per area and the largest owners, through GuildClient and guildctl.
        let alice = try #require(report["alice"] as? String)
        let bob = try #require(report["bob_id"] as? String)
        let admin = try await GuildClient.connect(path: scratch.socket)
        let storage = try await admin.call(SystemMethods.Storage.self)
        #expect(storage.quotaBytes == Int64(Self.quota))
        #expect(Set(storage.areas.keys) == ["objects", "states", "commands", "messages"])
        let aliceBytes = try #require(storage.largest.first { $0.owner == "user:" + alice }?.bytes)
        let bobBytes = try #require(storage.largest.first { $0.owner == "user:" + bob }?.bytes)
        #expect(storage.largest.first?.owner == "user:" + alice)
        #expect(aliceBytes == Int64(usage), "one deleted and one added since the refusal: \(aliceBytes) against \(usage)")
        #expect(storage.areas["objects"] == aliceBytes + bobBytes)
        #expect(storage.areas["states"] == 0)
        let metrics = try await admin.call(SystemMethods.Metrics.self)
        #expect(metrics.contains(#"guild_storage_bytes{area="objects"} \#(aliceBytes + bobBytes)"#), "\(metrics)")
        let check = try await admin.call(SystemMethods.Check.self)
        #expect(check.ok, "\(check.violations)")
        let guildctl = try await Child.run(Build.guildctl, ["admin", "storage", "--socket", scratch.socket])
        #expect(guildctl.status == 0, "\(guildctl.stderr)")
        #expect(guildctl.stdout.contains("quota per owner: \(Self.quota) bytes"))
        #expect(guildctl.stdout.contains("objects: \(aliceBytes + bobBytes) bytes"))
        #expect(guildctl.stdout.contains("user:\(alice): \(aliceBytes) bytes"))
        await admin.close()
    }
}
