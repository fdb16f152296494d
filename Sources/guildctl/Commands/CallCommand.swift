import ArgumentParser
import GuildClient
import GuildJSON
import GuildProtocol

/// `guildctl call METHOD [JSON]`: any method, with params as JSON text.
struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call any method with params given as JSON.",
        discussion: """
            Example: guildctl call user.get '{"userID": "u-123"}'
            """
    )

    @Argument(help: ArgumentHelp("The method name, e.g. system.ping.", valueName: "method"))
    var method: String

    @Argument(
        help: ArgumentHelp("The params as a JSON object or array (omitted: no params).", valueName: "json"),
        transform: JSONArgument.params
    )
    var params: JSONValue?

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let result = try await Runner.run(self.options) { client in
            try await client.call(self.method, params: self.params)
        }
        try Output.printResult(result, json: self.options.json)
    }
}
