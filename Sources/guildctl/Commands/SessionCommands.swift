import ArgumentParser
import GuildClient
import GuildProtocol

/// `guildctl session ...`: the connection's session.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Inspect, bind or end a session.",
        subcommands: [WhoAmI.self, Logout.self, Authenticate.self]
    )
}

extension SessionCommand {
    /// `session whoami`: `session.whoami`.
    struct WhoAmI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "whoami",
            abstract: "Show who the commands act as: the session's user, admin rights and peer credentials."
        )

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(SessionMethods.WhoAmI.self, self.options)
        }
    }

    /// `session logout`: `session.logout`.
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Revoke the access token given with --token (and its refresh token)."
        )

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(SessionMethods.Logout.self, self.options)
        }
    }

    /// `session authenticate`: `session.authenticate`.
    struct Authenticate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "authenticate",
            abstract: "Check an access token and show the session it opens."
        )

        @Option(help: ArgumentHelp("The access token to authenticate with.", valueName: "token"))
        var accessToken: String

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(SessionMethods.Authenticate.self, .init(accessToken: self.accessToken), self.options)
        }
    }
}
