import ArgumentParser
import GuildClient
import GuildProtocol

/// `guildctl admin ...`: maintenance calls reserved to admins.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Maintenance for admins (peers running as root or as one of guildd's --admin-uid users).",
        subcommands: [Check.self]
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
}
