import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

/// `guildctl object ...`: objects in buckets (see protocol/objects.md).
struct ObjectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "object",
        abstract: "Create, read, change, delete and query objects in buckets.",
        discussion: """
            A scope is app, group:ID or user:ID. Bodies and clauses are JSON: give them inline, or as @FILE \
            to read a file (@- for standard input).
            """,
        subcommands: [Create.self, Get.self, Replace.self, Patch.self, Delete.self, Query.self]
    )
}

/// Where an object lives: `--scope`, `--bucket`.
struct BucketOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The scope: app, group:ID or user:ID.", valueName: "scope"))
    var scope: String

    @Option(help: ArgumentHelp("The bucket's name.", valueName: "bucket"))
    var bucket: String
}

/// Which object: its scope, bucket and id.
struct ObjectOptions: ParsableArguments {
    @OptionGroup var where_: BucketOptions

    @Option(name: .customLong("object-id"), help: ArgumentHelp("The object's id.", valueName: "id"))
    var objectID: String

    var scope: String { self.where_.scope }
    var bucket: String { self.where_.bucket }
}

/// JSON given inline or as `@FILE` (`@-`: standard input).
enum JSONInput {
    static func read(_ text: String) throws -> JSONValue {
        guard text.hasPrefix("@") else { return try JSONArgument.value(text) }
        let path = String(text.dropFirst())
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read \(path)")
            }
            data = contents
        }
        return try JSONArgument.value(String(decoding: data, as: UTF8.self))
    }

    static func object(_ text: String, _ option: String) throws -> JSONValue {
        let value = try Self.read(text)
        guard case .object = value else { throw ValidationError("\(option) must be a JSON object, such as '{\"name\": \"Alice\"}'.") }
        return value
    }
}

extension ObjectCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Store a new object (object.create).")

        @OptionGroup var where_: BucketOptions
        @Option(help: ArgumentHelp("The object as a JSON object, or @FILE.", valueName: "json"))
        var body: String
        @Option(name: .customLong("object-id"), help: ArgumentHelp("The object's id (default: generated).", valueName: "id"))
        var objectID: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = ObjectMethods.Create.Params(
                scope: self.where_.scope,
                bucket: self.where_.bucket,
                body: try JSONInput.object(self.body, "--body"),
                objectID: self.objectID
            )
            let result = try await Runner.run(self.options) { try await $0.call(ObjectMethods.Create.self, params) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print an object (object.get).")

        @OptionGroup var object: ObjectOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = ObjectMethods.ObjectRef(scope: self.object.scope, bucket: self.object.bucket, objectID: self.object.objectID)
            let result = try await Runner.run(self.options) { try await $0.call(ObjectMethods.Get.self, params) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Replace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replace",
            abstract: "Replace an object's fields (object.replace); fields not given are gone."
        )

        @OptionGroup var write: WriteOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws { try await self.write.run(ObjectMethods.Replace.self, self.options) }
    }

    struct Patch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "patch",
            abstract: "Set some top-level fields of an object (object.patch); the others stay."
        )

        @OptionGroup var write: WriteOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws { try await self.write.run(ObjectMethods.Patch.self, self.options) }
    }

    /// The options of `replace` and `patch`.
    struct WriteOptions: ParsableArguments {
        @OptionGroup var object: ObjectOptions
        @Option(help: ArgumentHelp("The fields as a JSON object, or @FILE.", valueName: "json"))
        var body: String
        @Option(name: .customLong("if-version"), help: ArgumentHelp("Only if the object is at this _version.", valueName: "n"))
        var ifVersion: Int64?

        func run<M: RPCMethod>(_ method: M.Type, _ options: GlobalOptions) async throws
        where M.Params == ObjectMethods.WriteParams, M.Result == JSONValue {
            let params = ObjectMethods.WriteParams(
                scope: self.object.scope,
                bucket: self.object.bucket,
                objectID: self.object.objectID,
                body: try JSONInput.object(self.body, "--body"),
                ifVersion: self.ifVersion.map { ObjectVersion($0) }
            )
            let result = try await Runner.run(options) { try await $0.call(M.self, params) }
            try Output.printResult(result, json: options.json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an object (object.delete).")

        @OptionGroup var object: ObjectOptions
        @Option(name: .customLong("if-version"), help: ArgumentHelp("Only if the object is at this _version.", valueName: "n"))
        var ifVersion: Int64?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = ObjectMethods.Delete.Params(
                scope: self.object.scope,
                bucket: self.object.bucket,
                objectID: self.object.objectID,
                ifVersion: self.ifVersion.map { ObjectVersion($0) }
            )
            try await Runner.call(ObjectMethods.Delete.self, params, self.options)
        }
    }

    struct Query: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "query",
            abstract: "Query a bucket with Kii's clause language (object.query).",
            discussion: """
                Example: guildctl object query --scope app --bucket people \
                --clause '{"type":"range","field":"age","lowerLimit":18}' --order-by age --all
                Without --all one page is printed, and the next page's key goes to stderr; with --json the page \
                is printed as the daemon sends it.
                """
        )

        @OptionGroup var where_: BucketOptions
        @Option(help: ArgumentHelp("The clause as JSON, or @FILE (default: all).", valueName: "json"))
        var clause: String?
        @Option(name: .customLong("order-by"), help: ArgumentHelp("A dotted field path to sort by.", valueName: "field"))
        var orderBy: String?
        @Flag(help: "Largest first (with --order-by).")
        var descending = false
        @Option(help: ArgumentHelp("Objects per page (default 100, at most 500).", valueName: "n"))
        var limit: Int?
        @Option(name: .customLong("pagination-key"), help: ArgumentHelp("Continue from a previous page.", valueName: "key"))
        var paginationKey: String?
        @Flag(help: "Fetch every page.")
        var all = false
        @Option(help: ArgumentHelp("The fields to show as columns (comma-separated; default: all).", valueName: "fields"))
        var fields: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            var params = ObjectMethods.Query.Params(
                scope: self.where_.scope,
                bucket: self.where_.bucket,
                clause: try self.clause.map(JSONInput.read),
                orderBy: self.orderBy,
                descending: self.descending ? true : nil,
                limit: self.limit,
                paginationKey: self.paginationKey
            )
            let page = try await Runner.run(self.options) { client in
                var page = try await client.call(ObjectMethods.Query.self, params)
                guard self.all else { return page }
                var results = page.results
                while let next = page.nextPaginationKey {
                    params.paginationKey = next
                    page = try await client.call(ObjectMethods.Query.self, params)
                    results += page.results
                }
                return ObjectMethods.Query.Result(results: results, nextPaginationKey: nil)
            }
            if self.options.json {
                try Output.printResult(page, json: true)
                return
            }
            let objects = page.results.compactMap(\.objectValue)
            let chosen = self.fields.map { $0.split(separator: ",").map(String.init) }
            let columns = chosen ?? ["_id"] + Set(objects.flatMap(\.keys)).filter { !$0.hasPrefix("_") }.sorted() + ["_version"]
            let rows = try objects.map { object in try columns.map { column in try Self.cell(object[column]) } }
            for line in Output.table(headers: columns.map { $0 == "_id" ? "ID" : $0.uppercased() }, rows: rows) { print(line) }
            if let next = page.nextPaginationKey { Output.printError("more: --pagination-key \(next)") }
        }

        static func cell(_ value: JSONValue?) throws -> String {
            switch value {
            case nil: ""
            case .string(let text)?: text
            case let value?: try Output.compact(value)
            }
        }
    }
}
