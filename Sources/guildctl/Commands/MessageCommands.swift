import ArgumentParser
import Foundation
import GuildJSON
import GuildProtocol

extension GroupCommand {
    /// The message subcommands: send, history, unread, mark-read, recall.
    static let messageSubcommands: [any ParsableCommand.Type] = [Send.self, History.self, Unread.self, MarkRead.self, Recall.self]

    /// `group send`: `group.sendMessage`.
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a text (or --custom JSON) message to a group's members.",
            discussion: "Example: guildctl group send --group-id club --at u2 --priority High 'look at this'"
        )
        @OptionGroup var group: GroupIDOption
        @Argument(help: ArgumentHelp("The text (leave out with --custom).", valueName: "text")) var text: String?
        @Option(help: ArgumentHelp("A custom JSON body instead of text.", valueName: "json")) var custom: String?
        @Option(help: ArgumentHelp("High, Normal (default), Low or Lowest.", valueName: "priority")) var priority: String?
        @Option(name: .customLong("at"), help: ArgumentHelp("Mention a member (repeatable).", valueName: "user-id")) var mentions: [String] = []
        @Flag(name: .customLong("at-all"), help: "Mention every member.") var mentionAll = false
        @Option(help: ArgumentHelp("Opaque data carried with the message.", valueName: "text")) var cloudCustomData: String?
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard (self.text == nil) != (self.custom == nil) else { throw ValidationError("Give a text or --custom, not both.") }
        }

        func run() async throws {
            let custom: JSONValue? = try self.custom.map { text in
                do { return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) } catch {
                    throw ValidationError("--custom is not JSON: \(error.localizedDescription)")
                }
            }
            let mentions = self.mentions + (self.mentionAll ? [GroupMethods.mentionAll] : [])
            let params = GroupMethods.SendMessage.Params(
                groupID: self.group.groupID,
                text: self.text,
                custom: custom,
                priority: try wireChoice(self.priority, "--priority"),
                atUserList: mentions.isEmpty ? nil : mentions,
                cloudCustomData: self.cloudCustomData
            )
            try await Runner.call(GroupMethods.SendMessage.self, params, self.options)
        }
    }

    /// `group history`: `group.history`.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Page a group's messages by seq (newest first unless --newer).",
            discussion: "The result's nextSeq starts the next page (pass it as --seq); 0 when there is no more."
        )
        @OptionGroup var group: GroupIDOption
        @Option(help: ArgumentHelp("Start at this seq (included); the newest when left out.", valueName: "seq")) var seq: Int64?
        @Flag(help: "Page towards newer messages.") var newer = false
        @Option(help: ArgumentHelp("Messages per page, 1 to 20.", valueName: "n")) var count: Int?
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            let params = GroupMethods.History.Params(
                groupID: self.group.groupID,
                seq: self.seq,
                direction: self.newer ? .newer : .older,
                count: self.count
            )
            try await Runner.call(GroupMethods.History.self, params, self.options)
        }
    }

    /// `group unread`: `group.unreadCounts`.
    struct Unread: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show your unread counts: in one group (--group-id) or all of yours.")
        @Option(name: .customLong("group-id"), help: ArgumentHelp("Only this group.", valueName: "id")) var groupID: String?
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            try await Runner.call(GroupMethods.UnreadCounts.self, .init(groupID: self.groupID), self.options)
        }
    }

    /// `group mark-read`: `group.markRead`.
    struct MarkRead: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a group's messages read, up to --seq or all.")
        @OptionGroup var group: GroupIDOption
        @Option(help: ArgumentHelp("Read up to this seq; the newest when left out.", valueName: "seq")) var seq: Int64?
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            try await Runner.call(GroupMethods.MarkRead.self, .init(groupID: self.group.groupID, seq: self.seq), self.options)
        }
    }

    /// `group recall`: `group.recallMessage`.
    struct Recall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recall a message: your own within 2 minutes, anyone's as the owner or an admin."
        )
        @OptionGroup var group: GroupIDOption
        @Option(name: .customLong("msg-id"), help: ArgumentHelp("The message's msgID.", valueName: "id")) var msgID: String
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            try await Runner.call(GroupMethods.RecallMessage.self, .init(groupID: self.group.groupID, msgID: self.msgID), self.options)
        }
    }
}
