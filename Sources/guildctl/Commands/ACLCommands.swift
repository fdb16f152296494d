import ArgumentParser
import GuildClient
import GuildProtocol

/// `guildctl acl ...`: Kii's ACLs on a scope, a bucket or an object.
struct ACLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acl",
        abstract: "Show, grant and revoke ACL entries of a scope, bucket or object.",
        discussion: """
            An entry is ACTION=SUBJECT, e.g. READ_OBJECTS_IN_BUCKET=UserID:u1 or \
            QUERY_OBJECTS_IN_BUCKET=UserID:ANY_AUTHENTICATED_USER (subjects: UserID:ID, GroupID:ID, ThingID:ID, \
            UserID:ANY_AUTHENTICATED_USER, UserID:ANONYMOUS_USER).
            """,
        subcommands: [Get.self, Grant.self, Revoke.self]
    )
}

/// An ACL's target.
struct ACLTargetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The scope: app, group:ID or user:ID.", valueName: "scope"))
    var scope: String
    @Option(help: ArgumentHelp("A bucket of the scope (its ACL, or its object's).", valueName: "bucket"))
    var bucket: String?
    @Option(name: .customLong("object-id"), help: ArgumentHelp("An object of the bucket.", valueName: "id"))
    var objectID: String?
}

extension ACLCommand {
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "The entries in force, defaults included, as a table of action by subject (acl.get)."
        )

        @OptionGroup var target: ACLTargetOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = ACLMethods.Target(scope: self.target.scope, bucket: self.target.bucket, objectID: self.target.objectID)
            let result = try await Runner.run(self.options) { try await $0.call(ACLMethods.Get.self, params) }
            if self.options.json {
                try Output.printResult(result, json: true)
                return
            }
            // One row a subject, one column an action: "x" granted, "fixed" a default that cannot be revoked.
            let actions = result.entries.map(\.action).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            let subjects = result.entries.map(\.subject).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            let rows = subjects.map { subject in
                [subject]
                    + actions.map { action in
                        guard let entry = result.entries.first(where: { $0.subject == subject && $0.action == action }) else { return "" }
                        return entry.fixed == true ? "fixed" : "x"
                    }
            }
            for line in Output.table(headers: ["SUBJECT"] + actions, rows: rows) { print(line) }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "grant", abstract: "Grant entries (acl.grant).")

        @OptionGroup var change: ChangeOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws { try await self.change.run(ACLMethods.Grant.self, self.options) }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke entries (acl.revoke).")

        @OptionGroup var change: ChangeOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws { try await self.change.run(ACLMethods.Revoke.self, self.options) }
    }

    /// The options of `grant` and `revoke`.
    struct ChangeOptions: ParsableArguments {
        @OptionGroup var target: ACLTargetOptions
        @Argument(help: ArgumentHelp("Entries as ACTION=SUBJECT.", valueName: "entry"))
        var entries: [String]
        @Flag(help: "All entries or none, in one transaction.")
        var atomic = false
        @Flag(help: "Entries already as asked count as succeeded.")
        var ensure = false

        func validate() throws {
            for entry in self.entries where !entry.contains("=") {
                throw ValidationError("an entry is ACTION=SUBJECT, e.g. READ_OBJECTS_IN_BUCKET=UserID:u1, not '\(entry)'.")
            }
        }

        func run<M: RPCMethod>(_ method: M.Type, _ options: GlobalOptions) async throws
        where M.Params == ACLMethods.ChangeParams, M.Result == ACLMethods.ChangeResult {
            let entries = self.entries.map { text in
                let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
                return ACLMethods.Entry(action: parts[0], subject: parts.count > 1 ? parts[1] : "")
            }
            let params = ACLMethods.ChangeParams(
                scope: self.target.scope,
                bucket: self.target.bucket,
                objectID: self.target.objectID,
                entries: entries,
                atomic: self.atomic ? true : nil,
                ensure: self.ensure ? true : nil
            )
            let result = try await Runner.run(options) { try await $0.call(M.self, params) }
            if options.json {
                try Output.printResult(result, json: true)
            } else {
                let rows = result.succeeded.map { [$0.action, $0.subject, "ok"] } + result.failed.map { [$0.action, $0.subject, $0.reason] }
                for line in Output.table(headers: ["ACTION", "SUBJECT", "RESULT"], rows: rows) { print(line) }
            }
            if !result.failed.isEmpty { throw GuildExitCode.applicationError.exitCode }
        }
    }
}
