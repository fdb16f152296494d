import ArgumentParser

/// `guildctl`: the command-line client of the Guild daemon.
@main
struct GuildCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guildctl",
        abstract: "Talk to the Guild daemon (guildd) over its Unix socket.",
        discussion: """
            Every command connects to guildd, authenticates first with --token (or GUILD_TOKEN), else with \
            the session `guildctl login` kept for --profile on that socket, makes its call and prints the \
            result: tables and key-value blocks for people, or compact JSON with --json. Without a session, \
            a peer running as root (or as one of guildd's --admin-uid users) acts as admin. The global \
            options (--socket, --token, --profile, --json, -o, --show-token) go before or after the subcommand.

            Examples:
              guildctl login --username alice
              guildctl --profile bob whoami
              guildctl group create --name "Sales Div." --member <user-id>
              guildctl group members --group-id <group-id> --all
              guildctl user member-of
              guildctl watch --group <group-id> --count 1
              guildctl admin check

            Environment:
              GUILD_SOCKET    the socket path when --socket is omitted
              GUILD_TOKEN     the access token when --token is omitted
              GUILD_PROFILE   the profile when --profile is omitted (default: default)
              GUILD_PASSWORD  the password when --password is omitted

            Exit codes:
            \(GuildExitCode.helpTable)
            """,
        subcommands: [
            LoginCommand.self,
            RegisterCommand.self,
            LogoutCommand.self,
            SessionCommand.WhoAmI.self,
            CallCommand.self,
            MethodsCommand.self,
            PingCommand.self,
            StatusCommand.self,
            MetricsCommand.self,
            TopCommand.self,
            UserCommand.self,
            SessionCommand.self,
            GroupCommand.self,
            BucketCommand.self,
            ObjectCommand.self,
            ACLCommand.self,
            ThingCommand.self,
            CommandCommand.self,
            TriggerCommand.self,
            WatchCommand.self,
            ChatCommand.self,
            AdminCommand.self,
        ]
    )

    /// Runs the command line with the global options allowed before the subcommand.
    static func main() async {
        await Self.main(GlobalArguments.reordered(Array(CommandLine.arguments.dropFirst())))
    }
}
