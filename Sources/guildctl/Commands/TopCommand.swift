import ArgumentParser
import Foundation
import GuildClient
import GuildProtocol

/// `guildctl top`: a live view of the daemon, refreshed every second.
struct TopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "Show the daemon's activity live, refreshed every second (admins see every figure).",
        discussion: """
            Rates are per second over the last interval: requests (from system.metrics, admins), writes and \
            writes per commit (system.status), events appended (system.metrics); then connections, \
            subscriptions and guildd's resident memory (read from /proc when it runs on this machine). \
            Stop it with Ctrl-C, or give --count.
            """
    )

    @Option(help: ArgumentHelp("Seconds between refreshes.", valueName: "s"))
    var interval: Double = 1

    @Option(help: ArgumentHelp("Exit after this many refreshes.", valueName: "n"))
    var count: Int?

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        guard self.interval >= 0.1 else { throw ValidationError("--interval must be at least 0.1.") }
        if let count = self.count, count < 1 { throw ValidationError("--count must be at least 1.") }
    }

    /// The figures of one sample.
    struct Sample {
        var time: Date
        var status: SystemStatus
        /// Sums of the metrics' samples by name; empty when system.metrics is refused.
        var metrics: [String: Double]
    }

    func run() async throws {
        var previous: Sample?
        var shown = 0
        while self.count.map({ shown < $0 }) ?? true {
            let sample = try await Runner.run(self.options) { client in
                let status = try await client.call(SystemMethods.Status.self)
                let text = try? await client.call(SystemMethods.Metrics.self)
                return Sample(time: Date(), status: status, metrics: text.map(MetricsText.sums) ?? [:])
            }
            let screen = Self.render(sample, previous: previous)
            let clear = Terminal.stdoutIsTerminal ? "\u{1B}[H\u{1B}[2J" : ""
            FileHandle.standardOutput.write(Data((clear + screen.joined(separator: "\n") + "\n").utf8))
            previous = sample
            shown += 1
            if self.count.map({ shown >= $0 }) ?? false { break }
            try await Task.sleep(for: .milliseconds(Int(self.interval * 1000)))
        }
    }

    static func render(_ sample: Sample, previous: Sample?) -> [String] {
        let seconds = previous.map { sample.time.timeIntervalSince($0.time) } ?? 0
        func rate(_ now: Double?, _ before: Double?) -> String {
            guard let now, let before, seconds > 0 else { return "-" }
            return String(format: "%.1f", max(0, now - before) / seconds)
        }
        let writes = sample.status.writes
        let before = previous?.status.writes
        let commits = writes.flatMap { now in before.map { Double(now.commits - $0.commits) } }
        let operations = writes.flatMap { now in before.map { Double(now.operations - $0.operations) } }
        let perCommit = commits.flatMap { $0 > 0 ? String(format: "%.1f", (operations ?? 0) / $0) : nil } ?? "-"
        let metric = { (name: String) in sample.metrics[name] }
        let old = { (name: String) in previous?.metrics[name] }
        var rows: [(String, String)] = [
            ("requests/s", rate(metric("guild_requests_total"), old("guild_requests_total"))),
            ("writes/s", rate(writes.map { Double($0.operations) }, before.map { Double($0.operations) })),
            ("commits/s", rate(writes.map { Double($0.commits) }, before.map { Double($0.commits) })),
            ("writes/commit", perCommit),
            ("events/s", rate(metric("guild_events_appended_total"), old("guild_events_appended_total"))),
            ("delivered/s", rate(metric("guild_events_delivered_total"), old("guild_events_delivered_total"))),
            ("connections", String(sample.status.connections)),
            ("subscriptions", metric("guild_subscriptions").map { String(Int($0)) } ?? "-"),
            ("lagged", metric("guild_subscriptions_lagged_total").map { String(Int($0)) } ?? "-"),
            ("rss", Self.residentMemory(pid: sample.status.pid) ?? "-"),
        ]
        // PostgreSQL's read pool: reads queue for it while `reading` equals `size`.
        if let pool = sample.status.database?.readPool {
            rows.append(("read pool", "\(pool.reading) reading, \(pool.open) open of \(pool.size)"))
        }
        let uptime = Int(sample.status.uptimeSeconds)
        return ["guildd \(sample.status.version), pid \(sample.status.pid), up \(uptime / 3600)h \(uptime / 60 % 60)m \(uptime % 60)s"]
            + Output.block(rows)
    }

    /// guildd's resident memory from /proc (`VmRSS`), when it runs on this machine and /proc shows it.
    static func residentMemory(pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
        return String(format: "%.1f MiB", kilobytes / 1024)
    }
}
