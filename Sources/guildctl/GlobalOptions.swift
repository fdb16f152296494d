import ArgumentParser
import Foundation
import GuildClient

/// The options every command that talks to the daemon takes: where to connect, as whom, and how to print.
/// They may come before the subcommand too (`guildctl --socket PATH ping`): see ``GlobalArguments``.
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
            "An access token to authenticate with (default: $GUILD_TOKEN, else the profile's stored login).",
            valueName: "token"
        )
    )
    var token: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The stored login to use (default: $GUILD_PROFILE, else \"default\"); see `guildctl login`.",
            valueName: "name"
        )
    )
    var profile: String?

    @Flag(name: .customLong("json"), help: "Print the result as compact JSON on one line (errors also as JSON on stderr).")
    var jsonFlag = false

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Output form: human, json, or jsonl (one JSON object per line for streams).", valueName: "form")
    )
    var output: OutputForm?

    @Flag(name: .long, help: "Print access and refresh tokens in human output (they are hidden otherwise).")
    var showToken = false

    /// Whether to print machine-readable JSON rather than text for people.
    var json: Bool {
        self.jsonFlag || self.output == .json || self.output == .jsonl
    }

    /// The socket path: `--socket`, else `GUILD_SOCKET`, else the client library's default.
    var socketPath: String {
        if let socket = self.socket, !socket.isEmpty { return socket }
        return GuildClient.defaultSocketPath()
    }

    /// A token given for this run: `--token`, else `GUILD_TOKEN`; nil when neither is set.
    var explicitToken: String? {
        if let token = self.token, !token.isEmpty { return token }
        return Environment.value("GUILD_TOKEN")
    }

    /// The profile name: `--profile`, else `GUILD_PROFILE`, else `default`.
    var profileName: String {
        if let profile = self.profile, !profile.isEmpty { return profile }
        return Environment.value("GUILD_PROFILE") ?? "default"
    }

    /// Whether this run has a session to use: a given token or a stored login for the profile and socket.
    var hasSession: Bool {
        self.explicitToken != nil || (try? CredentialStore().login(profile: self.profileName, socket: self.socketPath)) != nil
    }

    func validate() throws {
        if let profile = self.profile, profile.isEmpty || profile.count > 64 {
            throw ValidationError("--profile must be 1 to 64 characters.")
        }
    }
}

/// The forms `-o` takes.
enum OutputForm: String, ExpressibleByArgument, CaseIterable, Sendable {
    case human
    case json
    case jsonl
}

/// Reads the process environment.
enum Environment {
    /// The variable's value, or nil when it is unset or empty.
    static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}

/// Lets the global options come before the subcommand, as in kubectl, gh and systemctl: the ones given
/// before the first subcommand name are moved after the command line's other arguments (before a `--`), where
/// the subcommand's ``GlobalOptions`` parse them.
enum GlobalArguments {
    /// Global options that take a value.
    static let withValue: Set<String> = ["--socket", "--token", "--profile", "--output", "-o"]
    /// Global flags.
    static let flags: Set<String> = ["--json", "--show-token"]

    /// `arguments` (without the program name) with the leading global options moved behind the subcommand.
    static func reordered(_ arguments: [String]) -> [String] {
        var kept: [String] = []
        var moved: [String] = []
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "--" {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if Self.withValue.contains(name) {
                moved.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    moved.append(arguments[index + 1])
                    index += 1
                }
            } else if Self.flags.contains(argument) {
                moved.append(argument)
            } else {
                kept.append(argument)
            }
            index += 1
        }
        guard !moved.isEmpty else { return arguments }
        var rest = Array(arguments[index...])
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: moved, at: end)
        return kept + rest
    }
}
