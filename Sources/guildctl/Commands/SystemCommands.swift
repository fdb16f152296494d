import ArgumentParser
import GuildClient
import GuildJSON
import GuildProtocol

/// `guildctl ping`: `system.ping`.
struct PingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Check that the daemon answers (prints pong)."
    )

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await Runner.call(SystemMethods.Ping.self, self.options)
    }
}

/// `guildctl status`: `system.status`.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's version, uptime, activation, connections and database."
    )

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let result = try await Runner.run(self.options) { client in
            try await client.call(SystemMethods.Status.self)
        }
        if self.options.json {
            try Output.printResult(result, json: true)
        } else {
            let order = ["version", "pid", "uptimeSeconds", "activation", "connections", "databasePath"]
            try Output.printFields(result, order: order)
        }
    }
}

/// `guildctl methods`: the method names from `rpc.discover`.
struct MethodsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "methods",
        abstract: "List the daemon's methods, who may call them, and what they do."
    )

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let document = try await Runner.run(self.options) { client in
            try await client.call(SystemMethods.Discover.self)
        }
        let methods: [JSONValue] = if case .array(let list) = document["methods"] { list } else { [] }
        let names = methods.compactMap { $0["name"]?.stringValue }
        if self.options.json {
            try Output.printResult(names, json: true)
            return
        }
        let nameWidth = names.map(\.count).max() ?? 0
        let authWidth = methods.compactMap { $0["x-auth"]?.stringValue?.count }.max() ?? 0
        for method in methods {
            guard let name = method["name"]?.stringValue else { continue }
            let auth = method["x-auth"]?.stringValue ?? ""
            let summary = method["summary"]?.stringValue ?? ""
            var line = Self.padded(name, nameWidth)
            if authWidth > 0 { line += "  " + Self.padded(auth, authWidth) }
            if !summary.isEmpty { line += "  " + summary }
            print(Self.trimmedRight(line))
        }
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private static func trimmedRight(_ text: String) -> String {
        String(text.reversed().drop(while: { $0 == " " }).reversed())
    }
}

/// `guildctl metrics`: `system.metrics`, the Prometheus text as it is.
struct MetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the daemon's metrics in Prometheus text format (admins).",
        discussion: """
            The output suits node_exporter's textfile collector: write it to a temporary file in the \
            collector's directory and rename it to guild.prom (see dist/guild-metrics.service and \
            dist/guild-metrics.timer). With --json the text is printed as one JSON string.
            """
    )

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let text = try await Runner.run(self.options) { client in
            try await client.call(SystemMethods.Metrics.self)
        }
        if self.options.json {
            try Output.printResult(text, json: true)
        } else {
            print(text, terminator: text.hasSuffix("\n") || text.isEmpty ? "" : "\n")
        }
    }
}
