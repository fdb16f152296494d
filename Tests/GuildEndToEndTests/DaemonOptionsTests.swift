import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// guildd's options at start: a value out of its range is a usage error naming the option (exit 64), never a
/// crash later (a duration or age that overflows when turned into nanoseconds or milliseconds).
@Suite(.endToEnd)
struct DaemonOptionsTests {
    static let outOfRange: [String] = [
        "--idle-exit=1e300", "--idle-exit=9223372036854775807", "--shutdown-timeout=1e300", "--shutdown-timeout=nan",
        "--frame-timeout=inf", "--idle-timeout=-1", "--write-stall-timeout=1e300", "--message-retention-days=1e300",
        "--event-retention-days=999999999999999", "--event-retention-days=-1", "--event-retention-count=-5",
        "--max-frame-bytes=9223372036854775807", "--max-frame-bytes=0", "--max-frame-bytes=-1",
        "--malloc-threshold=-1", "--malloc-threshold=33554433", "--malloc-threshold=9223372036854775807",
        "--postgres-write-connections=0", "--postgres-write-connections=17", "--presence-lease=0", "--presence-lease=nan",
        "--presence-lease=1e300",
    ]

    @Test(arguments: Self.outOfRange)
    func anOutOfRangeValueIsAUsageError(option: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await Child.run(
            Build.guildd,
            ["--socket", scratch.socket, "--database", scratch.database, "--scrypt-log-n", "4", option]
        )
        let name = String(option.prefix { $0 != "=" })
        #expect(run.status == 64, "\(option): status \(run.status), stderr \(run.stderr)")
        #expect(run.stderr.contains(name), "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error"))
    }

    static let thresholds: [(arguments: [String], environment: [String: String], logged: String)] = [
        ([], [:], "fixed at 131072 bytes"),
        (["--malloc-threshold=65536"], [:], "fixed at 65536 bytes"),
        (["--malloc-threshold=0"], [:], "adaptive, --malloc-threshold 0"),
        ([], ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=262144"], "set by GLIBC_TUNABLES"),
        ([], ["MALLOC_MMAP_THRESHOLD_": "262144"], "set by MALLOC_MMAP_THRESHOLD_"),
    ]

    /// guildd fixes glibc's mmap and trim thresholds at start (128 KiB unless told otherwise), and leaves them to
    /// glibc when told 0 or when the environment sets them.
    @Test(arguments: 0..<Self.thresholds.count)
    func theMallocThresholdsAreFixedAtStartUnlessTheEnvironmentSetsThem(index: Int) async throws {
        let (arguments, environment, logged) = Self.thresholds[index]
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await Child(
            Build.guildd,
            ["--socket", scratch.socket, "--database", scratch.database, "--scrypt-log-n", "4", "--log-level", "debug"] + arguments,
            environment: environment
        )
        var seen = false
        // The line is written before the socket is bound; once the socket exists, SIGTERM is a graceful stop. The
        // bound only catches a hang.
        for _ in 0..<6_000 where !seen {
            seen = daemon.stderr.contains("malloc thresholds") && FileManager.default.fileExists(atPath: scratch.socket)
            if !seen { try await Task.sleep(for: .milliseconds(10)) }
        }
        daemon.signal(SIGTERM)
        let status = await daemon.wait()
        #expect(seen, "\(daemon.stderr)")
        #expect(daemon.stderr.contains(logged), "\(daemon.stderr)")
        #expect(status == 0)
    }
}
