import ArgumentParser
import Foundation
import GuildClient
import GuildProtocol

/// `guildctl admin ...`: maintenance calls reserved to admins.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Maintenance for admins (peers running as root or as one of guildd's --admin-uid users).",
        subcommands: [Check.self, Backup.self, Storage.self]
    )
}

extension AdminCommand {
    /// `admin check`: `system.check`.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check the database's integrity and the group invariants.",
            discussion: """
                Prints ok, or not ok followed by each problem found. Exits 0 when everything holds, \
                1 when something does not.
                """
        )

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { client in
                try await client.call(SystemMethods.Check.self)
            }
            if self.options.json {
                try Output.printResult(result, json: true)
            } else if result.ok {
                print("ok")
            } else {
                print("not ok")
                for line in result.integrity where line != "ok" {
                    print("integrity: \(line)")
                }
                for violation in result.violations {
                    print("violation: \(violation)")
                }
            }
            if !result.ok {
                throw GuildExitCode.applicationError.exitCode
            }
        }
    }

    /// `admin storage`: `system.storage`.
    struct Storage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "storage",
            abstract: "Show the bytes stored per area and the owners storing the most.",
            discussion: """
                Prints the per-owner quota (guildd --storage-quota-bytes), the bytes of object bodies, thing \
                states, commands and group messages, then up to ten owners (user:ID, group:ID, thing:ID) with \
                their bytes, most first.
                """
        )

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { client in
                try await client.call(SystemMethods.Storage.self)
            }
            if self.options.json {
                try Output.printResult(result, json: true)
                return
            }
            print("quota per owner: \(result.quotaBytes == 0 ? "none" : "\(result.quotaBytes) bytes")")
            for area in result.areas.keys.sorted() {
                print("\(area): \(result.areas[area] ?? 0) bytes")
            }
            for owner in result.largest {
                print("\(owner.owner): \(owner.bytes) bytes")
            }
        }
    }

    /// `admin backup PATH`: `system.backup`.
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Copy the live database to a new file, without stopping writers.",
            discussion: """
                The daemon writes the copy (mode 0600), so PATH must be a new file in a directory guildd may \
                write to (under systemd, its StateDirectory, e.g. /var/lib/guild/backup/). The copy holds every \
                write acknowledged before the command began. To restore it: stop guildd (systemctl stop \
                guildd.socket guildd.service), run guildd --restore PATH (with the same --database), start it.
                """
        )

        @Argument(help: ArgumentHelp("Where to write the copy (a relative path is taken from here).", valueName: "path"), completion: .file())
        var path: String

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let absolute = URL(fileURLWithPath: self.path).standardizedFileURL.path
            let result = try await Runner.run(self.options) { client in
                try await client.call(SystemMethods.Backup.self, .init(path: absolute))
            }
            if self.options.json {
                try Output.printResult(result, json: true)
            } else {
                let seconds = (result.seconds * 1000).rounded() / 1000
                print("backed up \(result.bytes) bytes to \(result.path) in \(seconds) s")
            }
        }
    }
}
