import ArgumentParser

/// `guildctl`: the command-line client of the Guild daemon.
@main
struct GuildCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guildctl",
        abstract: "Talk to the Guild daemon (guildd) over its Unix socket.",
        discussion: """
            Every command connects to guildd, authenticates first when --token (or GUILD_TOKEN) is given, \
            makes its call and prints the result: pretty JSON for humans, or compact JSON with --json.

            Environment:
              GUILD_SOCKET    the socket path when --socket is omitted
              GUILD_TOKEN     the access token when --token is omitted
              GUILD_PASSWORD  the password when --password is omitted

            Exit codes:
            \(GuildExitCode.helpTable)
            """,
        subcommands: [
            CallCommand.self,
            MethodsCommand.self,
            PingCommand.self,
            StatusCommand.self,
            UserCommand.self,
            SessionCommand.self,
        ]
    )
}
