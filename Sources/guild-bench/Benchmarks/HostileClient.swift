import ArgumentParser
import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// `guild-bench hostile-client` (hidden): the hostile peers of the `hostile` benchmark. The benchmark runs it
/// as uid 65534 (under `setpriv`), one process per kind; it opens `--count` connections of its kind, misbehaves
/// on them for `--seconds`, closes them and prints one JSON line with what happened (``Summary``) on stdout.
/// The kinds that authenticate write `ready` to stderr once every connection has its session.
///
/// One thread drives every connection with non-blocking sockets and `poll`, so that nothing the daemon does
/// (or fails to do) can block it past its deadline.
struct HostileClient: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile-client",
        abstract: "Internal: the hostile peers of the hostile benchmark (run as an unprivileged uid).",
        shouldDisplay: false
    )

    /// What the connections of one process do.
    enum Kind: String, ExpressibleByArgument, CaseIterable, Codable, Sendable {
        /// Authenticates, subscribes `--subscriptions` times to `--group-id`, then never reads while events flow.
        case subscribeNoRead = "subscribe-no-read"
        /// Sends batches of 1,000 `rpc.discover` calls, over and over, and never reads the replies.
        case batchNoRead = "batch-no-read"
        /// Authenticates, then sends `events.subscribe` with 1,000,000 groupIDs (again after each reply).
        case hugeGroupIDs = "huge-group-ids"
        /// Sends 15 MiB of one line and never the `\n`.
        case unterminated
        /// Sends a `system.ping` request one byte a second, again after each reply.
        case trickle
        /// Connects and says nothing.
        case idle
        /// Opens connections until `--count` or until refused, and holds them.
        case slotGrab = "slot-grab"

        /// Whether the kind subscribes (so it is started first, before the daemon is loaded).
        var subscribes: Bool { self == .subscribeNoRead || self == .hugeGroupIDs }
    }

    /// What one process reports on stdout.
    struct Summary: Codable, Sendable {
        var kind: Kind
        var requested = 0
        var opened = 0
        var connectFailures = 0
        var firstConnectError: String?
        /// Connections the daemon closed (end of stream or hang-up seen).
        var closedByDaemon = 0
        var bytesSent = 0
        /// Completed units of work: batches or huge lines fully written, subscribe calls sent, trickled pings answered.
        var completed = 0
        /// Replies and notifications read (kinds that read).
        var linesRead = 0
        /// `data.reason` values of the error lines read, with their counts.
        var reasons: [String: Int] = [:]
        /// Connections still open at the end.
        var heldAtEnd = 0
    }

    @Option(help: "The guildd socket.")
    var socket: String

    @Option(help: "What the connections do.")
    var kind: Kind

    @Option(help: "How many connections.")
    var count: Int

    @Option(help: "How long to keep misbehaving.")
    var seconds: Double

    @Option(help: "Access tokens to authenticate with (comma-separated; used round-robin).")
    var tokens: String = ""

    @Option(help: "The group the subscribe kinds subscribe to.")
    var groupID: String = "hostile"

    @Option(help: "Subscriptions per connection for subscribe-no-read.")
    var subscriptions: Int = 1024

    /// Set by SIGTERM: stop early, still printing the summary.
    nonisolated(unsafe) static var terminated: sig_atomic_t = 0

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGTERM) { _ in HostileClient.terminated = 1 }
        try? raiseFileLimit(atLeast: self.count + 64)
        var run = HostileRun(
            socket: self.socket,
            kind: self.kind,
            count: self.count,
            tokens: self.tokens.split(separator: ",").map(String.init),
            groupID: self.groupID,
            subscriptions: self.subscriptions
        )
        let summary = run.run(until: monotonicNanos() + UInt64(self.seconds * 1e9))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(summary), as: UTF8.self))
    }
}

/// The state of one ``HostileClient`` process: its connections and the payloads they send.
struct HostileRun {
    /// One hostile connection.
    struct Peer {
        var fd: Int32
        /// What is being written, and how much of it is.
        var output: [UInt8] = []
        var written = 0
        /// Authentication: waiting for the reply to `session.authenticate`.
        var awaitingAuthentication = false
        /// Trickle: when the next byte goes out; subscribe kinds: how many units are done.
        var nextWrite: UInt64 = 0
        var units = 0
        var closed = false
    }

    let socket: String
    let kind: HostileClient.Kind
    let count: Int
    let tokens: [String]
    let groupID: String
    let subscriptions: Int
    var summary: HostileClient.Summary
    var peers: [Peer] = []
    /// The payload of the kind, built once and shared by every connection (arrays are copy-on-write).
    private var payload: [UInt8] = []
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Partial lines of the reading kinds, per connection.
    private var partial: [Int: [UInt8]] = [:]
    /// Connections whose `session.authenticate` was answered; at `count`, "ready" goes to stderr.
    private var authenticated = 0

    init(socket: String, kind: HostileClient.Kind, count: Int, tokens: [String], groupID: String, subscriptions: Int) {
        self.socket = socket
        self.kind = kind
        self.count = count
        self.tokens = tokens
        self.groupID = groupID
        self.subscriptions = subscriptions
        self.summary = HostileClient.Summary(kind: kind, requested: count)
    }

    /// Whether this kind reads what the daemon sends (the others only watch for hang-ups).
    private var reads: Bool {
        switch self.kind {
        case .subscribeNoRead, .batchNoRead: return false
        default: return true
        }
    }

    mutating func run(until deadline: UInt64) -> HostileClient.Summary {
        self.payload = Self.payload(self.kind, groupID: self.groupID, subscriptions: self.subscriptions)
        while monotonicNanos() < deadline, HostileClient.terminated == 0 {
            self.openMore()
            self.round(timeoutMilliseconds: 50)
        }
        for peer in self.peers where !peer.closed {
            self.summary.heldAtEnd += 1
            close(peer.fd)
        }
        return self.summary
    }

    /// The bytes each connection of a kind sends (after authenticating, for the kinds that do).
    static func payload(_ kind: HostileClient.Kind, groupID: String, subscriptions: Int) -> [UInt8] {
        switch kind {
        case .subscribeNoRead:
            var bytes: [UInt8] = []
            for id in 0..<subscriptions {
                bytes += (try? RawRPC.request(EventMethods.Subscribe.self, .init(groupIDs: [groupID]), id: 100 + id)) ?? []
            }
            return bytes
        case .batchNoRead:
            let request = #"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#
            return Array(("[" + Array(repeating: request, count: 1000).joined(separator: ",") + "]\n").utf8)
        case .hugeGroupIDs:
            var bytes = Array(#"{"jsonrpc":"2.0","id":7,"method":"events.subscribe","params":{"groupIDs":["#.utf8)
            bytes.reserveCapacity(12_000_100)
            for index in 0..<1_000_000 {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes += Array("\"g\(index)\"".utf8)
            }
            bytes += Array("]}}\n".utf8)
            return bytes
        case .unterminated:
            let head = Array(#"{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{"pad":""#.utf8)
            return head + [UInt8](repeating: UInt8(ascii: "a"), count: 15 * 1024 * 1024 - head.count)
        case .trickle:
            return RawSocket.pingLine
        case .idle, .slotGrab:
            return []
        }
    }

    /// Opens connections up to the count: all at once, except slot-grab, which opens 100 a round until refused.
    private mutating func openMore() {
        let target = self.kind == .slotGrab ? min(self.count, self.peers.count + 100) : self.count
        while self.peers.count < target {
            let fd: Int32
            do {
                fd = try RawSocket.connectNonBlocking(self.socket)
            } catch {
                self.summary.connectFailures += 1
                if self.summary.firstConnectError == nil { self.summary.firstConnectError = "\(error)" }
                return  // try again next round
            }
            self.summary.opened += 1
            var peer = Peer(fd: fd)
            switch self.kind {
            case .subscribeNoRead, .hugeGroupIDs:
                let token = self.tokens.isEmpty ? "" : self.tokens[self.peers.count % self.tokens.count]
                peer.output = (try? RawRPC.request(SessionMethods.Authenticate.self, .init(accessToken: token), id: 1)) ?? []
                peer.awaitingAuthentication = true
            case .batchNoRead, .unterminated:
                peer.output = self.payload
            case .trickle:
                peer.output = self.payload
                peer.nextWrite = monotonicNanos()
            case .idle, .slotGrab:
                break
            }
            self.peers.append(peer)
        }
    }

    /// One `poll` over every open connection, then the writes and reads it allows.
    private mutating func round(timeoutMilliseconds: Int32) {
        let now = monotonicNanos()
        var descriptors: [pollfd] = []
        var indices: [Int] = []
        let hangUp: Int16 = 0x2000  // POLLRDHUP: the peer closed (Glibc does not export the constant)
        for (index, peer) in self.peers.enumerated() where !peer.closed {
            var events = hangUp
            if self.reads || peer.awaitingAuthentication { events |= Int16(POLLIN) }
            if peer.written < peer.output.count {
                if self.kind != .trickle || peer.nextWrite <= now { events |= Int16(POLLOUT) }
            }
            descriptors.append(pollfd(fd: peer.fd, events: events, revents: 0))
            indices.append(index)
        }
        guard !descriptors.isEmpty else {
            usleep(UInt32(timeoutMilliseconds) * 1000)
            return
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
        guard ready > 0 else { return }
        for (slot, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
            let index = indices[slot]
            if descriptor.revents & Int16(POLLOUT) != 0 { self.write(index) }
            if descriptor.revents & Int16(POLLIN) != 0, !self.peers[index].closed { self.read(index) }
            if !self.peers[index].closed, descriptor.revents & (Int16(POLLHUP) | Int16(POLLERR) | hangUp) != 0,
                descriptor.revents & Int16(POLLIN) == 0 || !self.reads
            {
                self.markClosed(index)
            }
        }
    }

    private mutating func markClosed(_ index: Int) {
        guard !self.peers[index].closed else { return }
        self.peers[index].closed = true
        self.summary.closedByDaemon += 1
        close(self.peers[index].fd)
    }

    private mutating func write(_ index: Int) {
        var peer = self.peers[index]
        defer { self.peers[index] = peer }
        let length = self.kind == .trickle ? 1 : peer.output.count - peer.written
        let count = peer.output.withUnsafeBytes { Glibc.write(peer.fd, $0.baseAddress! + peer.written, length) }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            peer.closed = true
            self.summary.closedByDaemon += 1
            close(peer.fd)
            return
        }
        peer.written += count
        self.summary.bytesSent += count
        if self.kind == .trickle { peer.nextWrite = monotonicNanos() + 1_000_000_000 }
        guard peer.written == peer.output.count, !peer.awaitingAuthentication else { return }
        switch self.kind {
        case .batchNoRead:
            // Done with one batch: the next one, still never reading.
            self.summary.completed += 1
            peer.written = 0
        case .subscribeNoRead:
            self.summary.completed += self.subscriptions
        case .hugeGroupIDs, .unterminated:
            self.summary.completed += 1
        case .trickle, .idle, .slotGrab:
            break
        }
    }

    private mutating func read(_ index: Int) {
        let fd = self.peers[index].fd
        let count = self.readBuffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            self.markClosed(index)
            return
        }
        if count == 0 {
            self.markClosed(index)
            return
        }
        var buffer = self.partial[index] ?? []
        buffer += self.readBuffer[0..<count]
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            self.line(index, Array(buffer[..<newline]))
            buffer.removeSubrange(...newline)
        }
        // Keep at most 1 MiB of a partial line: only the first bytes are looked at.
        self.partial[index] = buffer.count > 1 << 20 ? Array(buffer.prefix(4096)) : buffer
    }

    private static let reasonKey = Array(#""reason":""#.utf8)

    private mutating func line(_ index: Int, _ line: [UInt8]) {
        self.summary.linesRead += 1
        if let reason = Self.reason(in: line) { self.summary.reasons[reason, default: 0] += 1 }
        var peer = self.peers[index]
        defer { self.peers[index] = peer }
        if peer.awaitingAuthentication {
            peer.awaitingAuthentication = false
            self.authenticated += 1
            if self.authenticated == self.count { FileHandle.standardError.write(Data("ready\n".utf8)) }
            peer.output = self.payload
            peer.written = 0
            return
        }
        switch self.kind {
        case .trickle:
            self.summary.completed += 1
            peer.written = 0
        case .hugeGroupIDs:
            // Another million-entry subscription, up to five per connection.
            peer.units += 1
            if peer.units < 5 { peer.written = 0 }
        default:
            break
        }
    }

    /// The `data.reason` of an error line, if any.
    static func reason(in line: [UInt8]) -> String? {
        guard RawRPC.contains(line, Array(#""error":"#.utf8)) else { return nil }
        guard let start = line.withUnsafeBytes({ raw in Self.reasonKey.withUnsafeBytes { RawRPC.find($0, in: raw) } }) else {
            return "error without reason"
        }
        let from = start + Self.reasonKey.count
        let end = line[from...].firstIndex(of: UInt8(ascii: "\"")) ?? line.count
        return String(decoding: line[from..<end], as: UTF8.self)
    }
}
