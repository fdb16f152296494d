import ArgumentParser
import Dispatch
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `guildctl watch`: group events as they happen, one line each: readable, or JSON with `--json` / `-o jsonl`.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print group events as they happen, one line each (JSON lines with --json or -o jsonl).",
        discussion: """
            Without --all you see the events of the groups you belonged to at the time and the events that \
            name you, so a token is needed (--token or GUILD_TOKEN). --all watches every group and is for \
            admins (no token needed).

            The watch survives disconnects and daemon restarts: it reconnects and resumes after the last \
            event printed, so nothing is lost or repeated. It runs until interrupted (SIGINT or SIGTERM: \
            exit 0), until --count events were printed (exit 0), or until the daemon refuses it (the exit \
            codes below). Each line is written as soon as its event arrives.

            Kinds: groupCreated, memberEnter, memberLeave, memberKicked, memberInvited, groupInfoChanged, \
            groupDismissed, quitFromGroup.

            Each line reads: time, #seq, kind, group, who acted (by USER, or by admin), and the users concerned.

            Example: guildctl watch --kind memberEnter --kind memberLeave --json | jq .users
            """
    )

    @Option(
        name: .customLong("group"),
        help: ArgumentHelp("Only events of this group (repeatable).", valueName: "group-id")
    )
    var groupIDs: [String] = []

    @Option(
        name: .customLong("bucket"),
        help: ArgumentHelp(
            "Also the object events of this bucket, as SCOPE/BUCKET, e.g. app/people or group:g1/notes (repeatable).",
            valueName: "scope/bucket"
        )
    )
    var buckets: [String] = []

    @Option(
        name: .customLong("kind"),
        help: ArgumentHelp("Only events of this kind (repeatable).", valueName: "kind")
    )
    var kinds: [String] = []

    @Option(help: ArgumentHelp("Replay the events after this sequence number first.", valueName: "seq"))
    var since: Int64?

    @Flag(help: "Watch every group (admins only).")
    var all = false

    @Option(help: ArgumentHelp("Exit 0 after printing this many events.", valueName: "n"))
    var count: Int?

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if let count = self.count, count < 1 { throw ValidationError("--count must be at least 1.") }
        if let since = self.since, since < 0 { throw ValidationError("--since must not be negative.") }
        if !self.options.hasSession, !self.all {
            throw ValidationError(
                "Log in (guildctl login), give an access token (--token or GUILD_TOKEN), or watch every group with --all (admins)."
            )
        }
    }

    /// The `--bucket` values as bucket references: the scope is everything before the last `/`.
    func bucketRefs() throws -> [EventMethods.BucketRef]? {
        guard !self.buckets.isEmpty else { return nil }
        return try self.buckets.map { text in
            guard let slash = text.lastIndex(of: "/"), slash != text.startIndex, text.index(after: slash) != text.endIndex else {
                throw ValidationError("--bucket is SCOPE/BUCKET, e.g. app/people or group:g1/notes, not '\(text)'.")
            }
            return .init(scope: String(text[..<slash]), bucket: String(text[text.index(after: slash)...]))
        }
    }

    /// How the watch ended without an error.
    private enum Ending: Sendable {
        case interrupted
        case finished
    }

    func run() async throws {
        let interrupts = Interrupts.start()
        defer { interrupts.stop() }
        let signals = interrupts.signals

        // Fail fast when the daemon cannot be reached or refuses the token; once watching, disconnects are
        // survived by reconnecting.
        let token = try await Runner.sessionToken(self.options)

        let events = GuildClient.events(
            path: self.options.socketPath,
            accessToken: token,
            groupIDs: self.groupIDs.isEmpty && self.buckets.isEmpty ? nil : self.groupIDs,
            buckets: try self.bucketRefs(),
            kinds: self.kinds.isEmpty ? nil : self.kinds,
            since: self.since,
            all: self.all
        )
        let count = self.count
        let json = self.options.json

        do {
            _ = try await withThrowingTaskGroup(of: Ending.self) { group in
                group.addTask {
                    for await _ in signals { return .interrupted }
                    return .finished
                }
                group.addTask {
                    try await Self.print(events, count: count, json: json)
                    return .finished
                }
                let ending = try await group.next() ?? .finished
                group.cancelAll()
                return ending
            }
        } catch {
            throw Runner.report(error, json: self.options.json)
        }
    }

    /// Prints each event on its own line (JSON, or ``line(_:)`` for people), written straight to stdout, until
    /// `count` events (if given) or until stdout is closed.
    private static func print(_ events: ResumingEvents, count: Int?, json: Bool) async throws {
        var printed = 0
        for try await event in events {
            var line = json ? try RPCCoding.encode(event) : Array(Self.line(event).utf8)
            line.append(UInt8(ascii: "\n"))
            do {
                try FileHandle.standardOutput.write(contentsOf: line)
            } catch {
                return  // the reader went away (e.g. `| head -1`): nothing left to do
            }
            printed += 1
            if let count, printed >= count { return }
        }
    }

    /// `14:03:07  #12  memberInvited  group G  by U  users A, B  changes name=Sales` (local time).
    static func line(_ event: GuildEvent) -> String {
        let time = Date(timeIntervalSince1970: Double(event.time) / 1000)
        let about =
            if let groupID = event.groupID { "group \(groupID)" } else {
                "bucket \(event.scope ?? "?")/\(event.bucket ?? "-")" + (event.objectID.map { " object \($0)" } ?? "")
            }
        var parts = [Self.clock.string(from: time), "#\(event.seq)", event.kind, about]
        if let actor = event.actor {
            parts.append("by \(actor)" + (event.byAdmin == true ? " (admin)" : ""))
        } else if event.byAdmin == true {
            parts.append("by admin")
        }
        if let users = event.users, !users.isEmpty { parts.append("users " + users.joined(separator: ", ")) }
        if let changes = event.changes, !changes.isEmpty {
            let pairs = changes.keys.sorted().map { key in
                "\(key)=" + Output.scalar(changes[key] ?? .null, key: key, now: time)
            }
            parts.append("changes " + pairs.joined(separator: " "))
        }
        return parts.joined(separator: "  ")
    }

    private static let clock: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm:ss"
        return formatter
    }()
}

/// SIGINT and SIGTERM as an async stream, so a long-running command (watch, thing agent) can stop cleanly
/// (exit 0) instead of being killed.
struct Interrupts {
    let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// Seconds to wait for the command to wind down after a signal before exiting anyway.
    private static let gracePeriod = 2.0

    /// Starts listening; `onSignal` runs on each signal, before the stream yields it.
    static func start(onSignal: (@Sendable (Int32) -> Void)? = nil) -> Interrupts {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                onSignal?(number)
                continuation.yield(number)
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.gracePeriod) { exit(0) }
            }
            source.resume()
            return source
        }
        return Interrupts(signals: signals, sources: sources)
    }

    /// Stops listening and restores the default handlers.
    func stop() {
        for source in self.sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
