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
        try Output.printResult(result, json: self.options.json)
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
        // NAME, AUTH, SUMMARY; a summary longer than the terminal allows goes on under its column.
        let rows = methods.compactMap { method -> [String]? in
            guard let name = method["name"]?.stringValue else { return nil }
            return [name, method["x-auth"]?.stringValue ?? "-", method["summary"]?.stringValue ?? ""]
        }
        let nameWidth = max(4, rows.map { $0[0].count }.max() ?? 0)
        let authWidth = max(4, rows.map { $0[1].count }.max() ?? 0)
        let indent = nameWidth + authWidth + 4
        let summaryWidth = max(30, Output.terminalWidth - indent)
        print(Output.trimmedRight(Output.padded("NAME", nameWidth) + "  " + Output.padded("AUTH", authWidth) + "  SUMMARY"))
        for row in rows {
            let summary = Output.wrapped(row[2], width: summaryWidth)
            print(Output.trimmedRight(Output.padded(row[0], nameWidth) + "  " + Output.padded(row[1], authWidth) + "  " + summary[0]))
            for line in summary.dropFirst() { print(String(repeating: " ", count: indent) + line) }
        }
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
