import Foundation
import GuildClient
import GuildProtocol
import GuildTestSupport
import Testing

/// `guildctl top` while clients write: successive screens show the rates move, read from a file (plain screens)
/// and from a real terminal (a detached tmux session, redrawn in place).
@Suite(.endToEnd)
struct TopTests {
    /// Each screen's `key: value` lines; screens start at their `guildd VERSION, pid …` header.
    static func screens(_ output: String) -> [[String: String]] {
        var screens: [[String: String]] = []
        for line in output.split(separator: "\n") {
            if line.hasPrefix("guildd ") {
                screens.append([:])
                continue
            }
            guard let colon = line.firstIndex(of: ":"), !screens.isEmpty else { continue }
            screens[screens.count - 1][String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return screens
    }

    @Test func topRatesMoveWhileClientsWrite() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        // The writes come from a process of their own (guildctl in a shell loop) and start before top does: under
        // the whole suite's load this test process's own tasks can stall for seconds (its client once wrote
        // nothing during top's whole window), while a process of its own is scheduled like top is. The client
        // only holds a connection open (every screen counts at least two). The loop pauses 50 ms between calls, so it
        // takes a fraction of a core instead of one the suite's other tests need (about 10 writes/s is plenty: one
        // screen with writes is asked for).
        let client = try await GuildClient.connect(path: scratch.socket)
        let before = try await client.call(SystemMethods.Status.self).writes?.operations ?? 0
        let writer = try await Child(
            "/bin/sh",
            ["-c", "while :; do '\(Build.guildctl)' call user.registerPseudo --socket '\(scratch.socket)' >/dev/null 2>&1; sleep 0.05; done"]
        )
        defer { writer.terminate() }
        #expect(try await Eventually.until { try await client.call(SystemMethods.Status.self).writes?.operations ?? 0 > before })
        let top = try await Child(Build.guildctl, ["top", "--socket", scratch.socket, "--interval", "0.5", "--count", "5"])
        defer { top.terminate() }
        #expect(await top.wait() == 0, "\(top.stderr)")

        let screens = Self.screens(top.stdout)
        #expect(screens.count == 5, "\(top.stdout)")
        #expect(!top.stdout.contains("\u{1B}["), "no terminal control codes when stdout is not a terminal")
        #expect(screens.first?["requests/s"] == "-", "the first screen has no interval yet")
        let requests = screens.dropFirst().compactMap { $0["requests/s"].flatMap(Double.init) }
        let writes = screens.dropFirst().compactMap { $0["writes/s"].flatMap(Double.init) }
        let perCommit = screens.dropFirst().compactMap { $0["writes/commit"].flatMap(Double.init) }
        #expect(requests.count == 4 && requests.allSatisfy { $0 > 0 }, "\(top.stdout)")
        #expect(writes.contains { $0 > 0 } && perCommit.allSatisfy { $0 >= 1 }, "\(top.stdout)")
        #expect(screens.allSatisfy { $0["rss"]?.hasSuffix("MiB") == true && $0["connections"].flatMap(Int.init).map { $0 >= 2 } == true })
        await client.close()
    }

    @Test func topRedrawsInATerminalWhileClientsWrite() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let server = "guild-top-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        defer { _ = Task { _ = try? await Child.run("/usr/bin/tmux", ["-L", server, "kill-server"]) } }
        let command = [Build.guildctl, "top", "--socket", scratch.socket, "--interval", "0.5"].joined(separator: " ")
        // Started without waiting: the tmux client's exit is not seen while the server it forked runs on.
        _ = try await Child("/usr/bin/tmux", ["-L", server, "new-session", "-d", "-s", "top", "-x", "120", "-y", "30", command])
        func requestRate() async throws -> Double? {
            let pane = try await Child.run("/usr/bin/tmux", ["-L", server, "capture-pane", "-p", "-t", "top"]).stdout
            return Self.screens(pane).last?["requests/s"].flatMap(Double.init)
        }

        let client = try await GuildClient.connect(path: scratch.socket)
        var rates: [Double] = []
        var round = 0
        while rates.count < 2, round < 600 {
            _ = try await client.call(UserMethods.Register.self, .init(username: "tty-\(round)", password: "pw-top"))
            round += 1
            if round % 20 == 0, let rate = try await requestRate(), rate > 0, rates.last != rate { rates.append(rate) }
            try await Task.sleep(for: .milliseconds(10))
        }
        await client.close()
        _ = try await Child.run("/usr/bin/tmux", ["-L", server, "kill-server"])
        #expect(rates.count == 2, "the screen never showed the request rate move: \(rates)")
    }
}
