import ArgumentParser
import Foundation
import GuildClient

/// The options every command that talks to the daemon takes: where to connect, as whom, and how to print.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket (default: $GUILD_SOCKET, else $XDG_RUNTIME_DIR/guild/guild.sock).",
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An access token to authenticate the connection with before the call (default: $GUILD_TOKEN).",
            valueName: "token"
        )
    )
    var token: String?

    @Flag(name: .long, help: "Print the result as compact JSON on one line (errors also as JSON on stderr).")
    var json = false

    /// The socket path: `--socket`, else `GUILD_SOCKET`, else the client library's default.
    var socketPath: String {
        if let socket = self.socket, !socket.isEmpty { return socket }
        return GuildClient.defaultSocketPath()
    }

    /// The access token to authenticate with: `--token`, else `GUILD_TOKEN`; nil when neither is set.
    var accessToken: String? {
        if let token = self.token, !token.isEmpty { return token }
        return Environment.value("GUILD_TOKEN")
    }
}

/// Reads the process environment.
enum Environment {
    /// The variable's value, or nil when it is unset or empty.
    static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}
