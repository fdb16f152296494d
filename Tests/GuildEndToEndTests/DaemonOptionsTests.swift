import GuildTestSupport
import Testing

/// An option value out of its range stops guildd at start with a usage error naming the option (exit 64), never
/// a crash later (a duration or age that overflows when turned into nanoseconds or milliseconds).
@Suite(.timeLimit(.minutes(10)))
struct DaemonOptionsTests {
    static let outOfRange: [String] = [
        "--idle-exit=1e300", "--idle-exit=9223372036854775807", "--shutdown-timeout=1e300", "--shutdown-timeout=nan",
        "--frame-timeout=inf", "--idle-timeout=-1", "--write-stall-timeout=1e300", "--message-retention-days=1e300",
        "--event-retention-days=999999999999999", "--event-retention-days=-1", "--event-retention-count=-5",
        "--max-frame-bytes=9223372036854775807", "--max-frame-bytes=0", "--max-frame-bytes=-1",
    ]

    @Test(arguments: Self.outOfRange)
    func anOutOfRangeValueIsAUsageError(option: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await Child.run(
            Build.guildd,
            ["--socket", scratch.socket, "--database", scratch.database, "--scrypt-log-n", "4", option],
            timeout: 20
        )
        let name = String(option.prefix { $0 != "=" })
        #expect(run.status == 64, "\(option): status \(run.status), stderr \(run.stderr)")
        #expect(run.stderr.contains(name), "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error"))
    }
}
