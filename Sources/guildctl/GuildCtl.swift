import ArgumentParser

/// `guildctl`: the command-line client of the Guild daemon.
@main
struct GuildCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guildctl",
        abstract: "Talk to the Guild daemon (guildd) over its Unix socket.",
        discussion: """
            Every command connects to guildd, authenticates first when --token (or GUILD_TOKEN) is given, \
            makes its call and prints the result: pretty JSON or lines for humans, or compact JSON with --json. \
            Without a token, a peer running as root (or as one of guildd's --admin-uid users) acts as admin.

            Examples:
              guildctl group create --name "Sales Div." --member <user-id>
              guildctl group members --group-id <group-id> --all
              guildctl user member-of
              guildctl watch --group <group-id> --count 1
              guildctl admin check

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
            GroupCommand.self,
            BucketCommand.self,
            ObjectCommand.self,
            ACLCommand.self,
            WatchCommand.self,
            ChatCommand.self,
            AdminCommand.self,
        ]
    )
}
