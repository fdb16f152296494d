import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// guildd under systemd logs structured journal entries (sd_journal_sendv), tested against a fake journal: in
/// a private mount namespace a tmpfs hides /run/systemd, and a Python datagram socket at
/// /run/systemd/journal/socket records what arrives. Outside the journal (no `JOURNAL_STREAM`), plain lines.
@Suite(.endToEnd)
struct JournalTests {
    /// The fields of each datagram (the native protocol's `KEY=value` lines).
    static func entries(_ path: String) throws -> [[String: String]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var entries: [[String: String]] = []
        var offset = 0
        while offset + 4 <= data.count {
            let length = data[offset..<offset + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let datagram = String(decoding: data[offset + 4..<offset + 4 + length], as: UTF8.self)
            var fields: [String: String] = [:]
            for line in datagram.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            entries.append(fields)
            offset += 4 + length
        }
        return entries
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")))
    func underSystemdEntriesCarryStructuredFields() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = scratch.path + "/journal.bin"
        let stderr = scratch.path + "/stderr.txt"
        let fake = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind("/run/systemd/journal/socket")
            out = open(sys.argv[1], "ab", buffering=0)
            while True:
                data = s.recv(1 << 20)
                out.write(len(data).to_bytes(4, "little") + data)
            """
        try fake.write(toFile: scratch.path + "/fake-journal.py", atomically: true, encoding: .utf8)
        let script = """
            set -e
            mount -t tmpfs tmpfs /run/systemd
            mkdir -p /run/systemd/journal
            python3 "$1/fake-journal.py" "$2" &
            fake=$!
            while [ ! -S /run/systemd/journal/socket ]; do sleep 0.02; done
            exec 2>"$3"
            export JOURNAL_STREAM="$(stat -c '%d:%i' "$3")"
            "$4" --socket "$1/s.sock" --database "$1/guild.sqlite" --scrypt-log-n 4 --log-level info &
            daemon=$!
            while ! "$5" --socket "$1/s.sock" ping >/dev/null 2>&1; do sleep 0.05; done
            kill -TERM $daemon
            status=0
            wait $daemon || status=$?
            sleep 0.2
            kill $fake
            exit $status
            """
        let result = try await Child.run(
            "/usr/bin/unshare",
            ["-m", "--propagation", "private", "sh", "-c", script, "sh", scratch.path, journal, stderr, Build.guildd, Build.guildctl]
        )
        #expect(result.status == 0 || result.status == 143, "\(result.stdout)\(result.stderr)")
        let entries = try Self.entries(journal)
        #expect(!entries.isEmpty, "nothing reached the fake journal; stderr: \(result.stderr)")
        #expect(entries.allSatisfy { $0["SYSLOG_IDENTIFIER"] == "guildd" && $0["PRIORITY"] != nil && $0["MESSAGE"] != nil })
        #expect(entries.allSatisfy { $0["CODE_FILE"] != nil && $0["CODE_LINE"] != nil })
        let closed = try #require(entries.first { $0["MESSAGE"] == "database closed" }, "\(entries)")
        #expect(closed["PRIORITY"] == "6")
        #expect(closed["GUILD_PATH"] == scratch.path + "/guild.sqlite")
        #expect(closed["GUILD_LOGGER"] == "guildd")
        let all = entries.flatMap { $0.keys }
        #expect(!all.contains { $0.contains("TOKEN") || $0.contains("PASSWORD") })
        let plain = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        #expect(!plain.contains("database closed"), "under the journal, no plain lines: \(plain)")
    }

    @Test func onATerminalOrFileLogsArePlainLines() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await Child(
            Build.guildd,
            ["--socket", scratch.socket, "--database", scratch.database, "--scrypt-log-n", "4", "--log-level", "info"],
            environment: ["JOURNAL_STREAM": "1:1"]
        )
        try await RealDaemon.waitUntilServing(scratch.socket)
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "guildd's stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains("database closed"), "a JOURNAL_STREAM that is not stderr means plain lines: \(daemon.stderr)")
    }
}
