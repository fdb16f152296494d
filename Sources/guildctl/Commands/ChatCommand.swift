import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

/// `guildctl chat GROUP`: a line-oriented chat in the terminal.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat in a group: its latest messages, then live ones; each line you type is sent.",
        discussion: """
            On entry the last --history messages are shown, oldest first, and the group is marked read. \
            New messages appear as they arrive (`#seq sender: text`, `@me` when they mention you), recalls \
            as `#seq recalled`. After each, a status line shows your unread count in your other groups. \
            Type a line to send it; `/recall MSGID` recalls a message; `/quit` or end of input leaves. \
            Needs a token (--token or GUILD_TOKEN).
            """
    )

    @Argument(help: ArgumentHelp("The group's id.", valueName: "group-id")) var groupID: String
    @Option(help: ArgumentHelp("Messages shown on entry, 0 to 20.", valueName: "n")) var history = 20
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        guard self.options.hasSession else { throw ValidationError("Log in (guildctl login) or give an access token (--token or GUILD_TOKEN).") }
        guard (0...20).contains(self.history) else { throw ValidationError("--history must be 0 to 20.") }
    }

    func run() async throws {
        let groupID = self.groupID
        let count = self.history
        try await Runner.run(self.options) { client in
            let me = try await client.call(SessionMethods.WhoAmI.self).user?.userID ?? ""
            let subscription = try await client.subscribe(groupIDs: [groupID], kinds: ["newMessage", "messageRevoked"])
            if count > 0 {
                for message in try await client.history(groupID: groupID, count: count).messages.reversed() {
                    Self.write(Self.line(seq: message.seq, sender: message.sender, text: Self.text(message), mentioned: message.mentionsMe))
                }
            }
            try await Self.status(client, groupID)
            let lines = Self.standardInputLines()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await event in subscription.events {
                        let seq = event.changes?["messageSeq"]?.intValue ?? 0
                        if event.kind == "messageRevoked" {
                            Self.write("#\(seq) recalled")
                            continue
                        }
                        let mentions = event.changes?["atUserList"].flatMap(Self.strings) ?? []
                        let mentioned = mentions.contains(me) || mentions.contains(GroupMethods.mentionAll)
                        let text = event.changes?["text"]?.stringValue ?? "(custom) " + Self.compact(event.changes?["custom"])
                        Self.write(Self.line(seq: seq, sender: event.actor ?? "admin", text: text, mentioned: mentioned))
                        try await Self.status(client, groupID)
                    }
                }
                group.addTask {
                    for await line in lines {
                        if line == "/quit" { return }
                        if line.hasPrefix("/recall ") {
                            let msgID = String(line.dropFirst("/recall ".count)).trimmingCharacters(in: .whitespaces)
                            do { try await client.recallMessage(groupID: groupID, msgID: msgID) } catch { Self.write("! \(error)") }
                            continue
                        }
                        guard !line.isEmpty else { continue }
                        do { _ = try await client.sendMessage(groupID: groupID, text: line) } catch { Self.write("! \(error)") }
                    }
                }
                // Leaving (a /quit or the end of input) ends the chat.
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// Marks the group read and prints the status line.
    private static func status(_ client: GuildClient, _ groupID: String) async throws {
        _ = try await client.markRead(groupID: groupID)
        let counts = try await client.unreadCounts()
        let elsewhere = counts.groups.filter { $0.groupID != groupID }
        let badges = elsewhere.filter { $0.badgeOnly && $0.unread > 0 }.count
        let mentions = elsewhere.filter(\.mentioned).count
        Self.write("-- \(groupID) | unread elsewhere: \(counts.total)\(badges > 0 ? " +\(badges)•" : "")\(mentions > 0 ? " (@\(mentions))" : "") --")
    }

    static func line(seq: Int64, sender: String, text: String, mentioned: Bool) -> String {
        "#\(seq) \(sender)\(mentioned ? " @me" : ""): \(text)"
    }

    static func text(_ message: GroupMethods.GroupMessage) -> String {
        if message.revoked { return "(recalled)" }
        return message.text ?? "(custom) " + Self.compact(message.custom)
    }

    private static func strings(_ value: JSONValue) -> [String]? {
        guard case .array(let items) = value else { return nil }
        return items.compactMap(\.stringValue)
    }

    private static func compact(_ value: JSONValue?) -> String {
        guard let value, let bytes = try? RPCCoding.encode(value) else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One line to stdout at once (the terminal, or a pipe, sees it immediately).
    private static func write(_ line: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Standard input's lines, read on a thread of their own (reading blocks).
    private static func standardInputLines() -> AsyncStream<String> {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            while let line = Swift.readLine() { continuation.yield(line) }
            continuation.finish()
        }
        thread.start()
        return lines
    }
}
