import Foundation
import GuildClient
import GuildProtocol
import GuildTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What an operator runs, through the real binaries: `guildctl metrics` (parsed by Python's prometheus_client,
/// a strict parser of the text format) and `guildctl admin backup` under load, then `guildd --restore`.
@Suite(.endToEnd)
struct OperationsTests {
    /// The venv `scripts/prerequisites` makes, with prometheus_client.
    static let python = Build.packageRoot.appendingPathComponent(".build/prometheus-venv/bin/python3").path

    /// Parses exposition text with prometheus_client and returns every sample as `name{labels} value` lines
    /// with sorted labels, or throws with the parser's complaint.
    func parsePrometheus(_ text: String, in scratch: Scratch) async throws -> [String: Double] {
        let input = scratch.path + "/metrics.prom"
        try text.write(toFile: input, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = {}
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for s in family.samples:
                    labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                    out[s.name + "{" + labels + "}"] = s.value
            print(json.dumps(out))
            """
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "run scripts/prerequisites (it makes \(Self.python))")
        let parsed = try await Child.run(Self.python, ["-c", script, input])
        #expect(parsed.status == 0, "prometheus_client refused the text: \(parsed.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Double]
        return try #require(object)
    }

    /// The retention counts what it removes (`guild_events_pruned_total`): five groups made (five events) with
    /// two events kept; the restarted daemon prunes at start, before any request.
    @Test func theRetentionCountsTheEventsItPrunes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let retention = ["--event-retention-count", "2"]
        var daemon = try await RealDaemon.start(scratch, retention)
        let socket = ["--socket", scratch.socket]
        let environment = ["XDG_CONFIG_HOME": scratch.path + "/config", "GUILD_TOKEN": ""]
        let register = try await Child.run(
            Build.guildctl,
            socket + ["register", "--username", "erin", "--password", "pw-erin"],
            environment: environment
        )
        #expect(register.status == 0, "\(register.stderr)")
        for index in 0..<5 {
            let group = try await Child.run(Build.guildctl, socket + ["group", "create", "--name", "G\(index)"], environment: environment)
            #expect(group.status == 0, "\(group.stderr)")
        }
        daemon.terminate()
        _ = await daemon.wait()

        daemon = try await RealDaemon.start(scratch, retention)
        defer { daemon.terminate() }
        var pruned = 0.0
        // The start-up prune runs beside the first requests: asked again until it is counted.
        let counted = try await Eventually.until {
            let metrics = try await Child.run(Build.guildctl, socket + ["metrics"])
            pruned = try await self.parsePrometheus(metrics.stdout, in: scratch)["guild_events_pruned_total{}"] ?? 0
            return pruned > 0
        }
        #expect(counted)
        // Five groupCreated events (and any the registration made) less the two kept.
        #expect(pruned >= 3)
    }

    @Test func metricsAreValidPrometheusTextAndCount() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = ["--socket", scratch.socket]
        let environment = ["XDG_CONFIG_HOME": scratch.path + "/config", "GUILD_TOKEN": ""]

        for _ in 0..<3 { _ = try await Child.run(Build.guildctl, socket + ["ping"]) }
        _ = try await Child.run(Build.guildctl, socket + ["call", "no.such.method"])
        let register = try await Child.run(
            Build.guildctl,
            socket + ["register", "--username", "dana", "--password", "pw-dana"],
            environment: environment
        )
        #expect(register.status == 0, "\(register.stderr)")
        let group = try await Child.run(Build.guildctl, socket + ["group", "create", "--name", "Ops"], environment: environment)
        #expect(group.status == 0, "\(group.stderr)")
        // One event delivered to a subscriber (replayed from the start).
        let watch = try await Child.run(Build.guildctl, socket + ["watch", "--since", "0", "--count", "1", "--json"], environment: environment)
        #expect(watch.status == 0 && watch.stdout.contains("groupCreated"), "\(watch.stderr)")

        let metrics = try await Child.run(Build.guildctl, socket + ["metrics"])
        #expect(metrics.status == 0, "\(metrics.stderr)")
        let samples = try await self.parsePrometheus(metrics.stdout, in: scratch)

        #expect((samples[#"guild_requests_total{method="system.ping"}"#] ?? 0) >= 3)
        #expect((samples[#"guild_requests_total{method="(unknown)"}"#] ?? 0) >= 1)
        #expect((samples[#"guild_request_errors_total{code="-32601"}"#] ?? 0) >= 1)
        #expect((samples[#"guild_request_duration_seconds_count{method="user.register"}"#] ?? 0) == 1)
        #expect(samples[#"guild_request_duration_seconds_bucket{le="+Inf",method="system.ping"}"#] != nil)
        #expect((samples["guild_connections{}"] ?? 0) >= 1)
        #expect(samples["guild_subscriptions{}"] == 0)
        #expect((samples["guild_database_bytes{}"] ?? 0) > 0)
        // SQLite's own heap in the daemon: at least the open connections and the pages they read.
        #expect((samples["guild_database_heap_bytes{}"] ?? 0) > 100_000)
        #expect((samples["guild_store_commit_duration_seconds_count{}"] ?? 0) >= 2)
        #expect((samples["guild_store_commit_operations_count{}"] ?? 0) >= 2)
        #expect((samples["guild_events_appended_total{}"] ?? 0) >= 1)
        #expect((samples["guild_events_delivered_total{}"] ?? 0) >= 1)
        // A method no request has called is listed at zero once start-up is over: guildd makes the remaining
        // methods' instruments 100 ms after it starts (a method's first request makes its own before that).
        let uncalled = #"guild_requests_total{method="thing.onboard"}"#
        var listed = samples
        try await Eventually.until(every: .milliseconds(100)) {
            if listed[uncalled] != nil { return true }
            listed = try await self.parsePrometheus(try await Child.run(Build.guildctl, socket + ["metrics"]).stdout, in: scratch)
            return false
        }
        #expect(listed[uncalled] == 0)
        #expect(listed[#"guild_request_duration_seconds_count{method="thing.onboard"}"#] == 0)

        // Admins only; JSON form is one string.
        let json = try await Child.run(Build.guildctl, socket + ["metrics", "--json"])
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8), options: .fragmentsAllowed) as? String
        #expect(decoded?.contains("# TYPE guild_requests_total counter") == true)
        let denied = try await Child.run(Build.guildctl, socket + ["metrics"], environment: environment)
        #expect(denied.status == 0, "root is an admin even with a session")
    }

    @Test func backupUnderLoadRestoresEveryAcknowledgedWrite() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var daemon = try await RealDaemon.start(scratch)
        let backup = scratch.path + "/backup.sqlite"

        // Writers register users as fast as they can; each id is recorded once its reply arrived.
        let load = Load()
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<3 {
                    group.addTask {
                        let client = try await GuildClient.connect(path: scratch.socket)
                        var index = 0
                        while !load.stop.load(ordering: .relaxed) {
                            let params = UserMethods.Register.Params(username: "w\(writer)-\(index)", password: "pw-load")
                            let auth = try await client.call(UserMethods.Register.self, params)
                            load.acknowledged.withLock { $0.append(auth.user.userID) }
                            index += 1
                        }
                        await client.close()
                    }
                }
                try await group.waitForAll()
            }
        }
        while load.acknowledged.withLock({ $0.count }) < 60 { try await Task.sleep(for: .milliseconds(10)) }
        let beforeBackup = load.acknowledged.withLock { $0 }
        let made = try await Child.run(Build.guildctl, ["--socket", scratch.socket, "admin", "backup", backup])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("backed up"))
        let countAfterBackup = load.acknowledged.withLock { $0.count }
        while load.acknowledged.withLock({ $0.count }) < countAfterBackup + 20 { try await Task.sleep(for: .milliseconds(10)) }
        load.stop.store(true, ordering: .relaxed)
        try await writers.value
        let all = load.acknowledged.withLock { $0 }

        let attributes = try FileManager.default.attributesOfItem(atPath: backup)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let again = try await Child.run(Build.guildctl, ["--socket", scratch.socket, "admin", "backup", backup])
        #expect(again.status == 2, "a backup never overwrites: \(again.stderr)")
        #expect(again.stderr.contains("already exists"))
        // A directory that cannot be created is the caller's path, said plainly (it was an internal error).
        let nowhere = try await Child.run(Build.guildctl, ["--socket", scratch.socket, "admin", "backup", "/proc/self/guild-nowhere/b.sqlite"])
        #expect(nowhere.status == 2, "\(nowhere.stderr)")
        #expect(nowhere.stderr.contains("cannot create the directory /proc/self/guild-nowhere"), "\(nowhere.stderr)")
        #expect(!nowhere.stderr.contains("INTERNAL_ERROR"), "\(nowhere.stderr)")

        // --restore refuses while the daemon is running, then replaces the database once it is stopped.
        let restoreArguments = ["--restore", backup, "--database", scratch.database, "--socket", scratch.socket]
        let refused = try await Child.run(Build.guildd, restoreArguments)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("stop it"))
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
        let restored = try await Child.run(Build.guildd, restoreArguments)
        #expect(restored.status == 0, "\(restored.stderr)")

        daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        var present: Set<String> = []
        for userID in all {
            if (try? await client.call(UserMethods.Get.self, .init(userID: userID))) != nil { present.insert(userID) }
        }
        await client.close()
        #expect(Set(beforeBackup).isSubset(of: present), "every write acknowledged before the backup began is restored")
        #expect(present.count < all.count, "writes after the backup are not in it")
        let check = try await Child.run(Build.guildctl, ["--socket", scratch.socket, "admin", "check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }
}

/// The writers' shared record: the ids acknowledged so far, and when to stop.
private final class Load: Sendable {
    let acknowledged = Mutex<[String]>([])
    let stop = Atomic<Bool>(false)
}
