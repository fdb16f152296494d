import ArgumentParser
import GuildClient
import GuildProtocol

/// `guildctl bucket ...`: the buckets of a scope.
struct BucketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bucket",
        abstract: "List and drop buckets.",
        subcommands: [List.self, Delete.self]
    )
}

extension BucketCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The scope's buckets you may see, with their object counts (bucket.list)."
        )

        @Option(help: ArgumentHelp("The scope: app, group:ID or user:ID.", valueName: "scope"))
        var scope: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.call(BucketMethods.List.self, .init(scope: self.scope)) }
            if self.options.json {
                try Output.printResult(result, json: true)
                return
            }
            let rows = result.buckets.map { [$0.bucket, String($0.objectCount), $0.creator ?? "-"] }
            for line in Output.table(headers: ["BUCKET", "OBJECTS", "CREATOR"], rows: rows) { print(line) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Drop a bucket with all its objects (bucket.delete)."
        )

        @OptionGroup var where_: BucketOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(BucketMethods.Delete.self, .init(scope: self.where_.scope, bucket: self.where_.bucket), self.options)
        }
    }
}
