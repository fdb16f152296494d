import Foundation
import GuildTestSupport
import Testing

/// The shipped unit files are valid for systemd (`systemd-analyze verify`).
@Suite(.endToEnd) struct SystemdUnitTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func unitFilesVerify() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let units = Build.packageRoot.appendingPathComponent("dist/systemd")
        let names = ["guildd.socket", "guildd.service", "guild-metrics.service", "guild-metrics.timer"]
        for name in names {
            var text = try String(contentsOf: units.appendingPathComponent(name), encoding: .utf8)
            // Point ExecStart at the binary just built; the unit installs it to /usr/local/bin.
            text = text.replacingOccurrences(of: "/usr/local/bin/guildd", with: Build.guildd)
            text = text.replacingOccurrences(of: "/usr/local/bin/guildctl", with: Build.guildctl)
            try text.write(toFile: scratch.path + "/" + name, atomically: true, encoding: .utf8)
        }
        let result = try await Child.run("/usr/bin/systemd-analyze", ["verify"] + names.map { scratch.path + "/" + $0 })
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.stderr.contains("guild"), "\(result.stderr)")
    }
}
