import Dispatch
import Foundation
import FuzzSupport
import GuildCore
import GuildProtocol
import GuildServer
import GuildStore
import Logging
import ServiceLifecycle

/// The dispatcher fuzz target: one real `GuildServer` (every method registered, SQLite store in a temporary
/// directory, admin peer since the fuzzer runs as root) serving a short socket under `$TMPDIR`.
///
/// An input is either raw lines (it starts with `{` or `[`: each line is sent as is, `---` starts another
/// connection) or bytes that `MessageGenerator` turns into calls. All lines of a connection are written at once
/// (pipelined), then checked:
/// - every frame gets what JSON-RPC prescribes: one reply line per message with an id or an invalid entry,
///   one array per batch that has such entries, nothing for notifications; a frame over the limit gets
///   -32600 FRAME_TOO_LARGE and the connection is closed; all within 15 s;
/// - no reply is -32603 (an unexpected error is a bug: every failure has a documented code);
/// - liveness, on a fresh connection afterwards: `system.ping`, a store write (`user.registerPseudo`), an
///   update and a store read (`user.get`) answer within 10 s in all, and the read returns what the update
///   acknowledged.
///
/// A broken check aborts, so libFuzzer records the input. `GUILD_FUZZ_SKIP` (comma-separated:
/// `frame-size`, `internal-error`, `round-trip`) skips known failures when exploring locally;
/// `GUILD_FUZZ_VERBOSE` prints each input's lines.
final class DispatchHarness: Sendable {
    static let shared = DispatchHarness()

    static let frameLimit = 4096
    let socket: String
    let generator: MessageGenerator

    private init() {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        let directory = "\(base)/gf-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.socket = directory + "/s.sock"
        let database = directory + "/guild.sqlite"
        let socket = self.socket
        let ready = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                let store = try SQLiteStore(configuration: .init(path: database, synchronous: "OFF"))
                var configuration = ServerConfiguration(
                    listen: .path(socket, mode: 0o600),
                    maximumFrameBytes: Self.frameLimit,
                    adminUIDs: [0],
                    databasePath: database
                )
                configuration.accessTokenLifetimeSeconds = 3600
                var logger = Logger(label: "fuzz")
                logger.logLevel = .critical
                let server = try await GuildServer.make(
                    configuration: configuration,
                    store: store,
                    hasher: OffloadedPasswordHasher(PasswordHasher(logN: 4)),
                    logger: logger
                ) { ready.signal() }
                try await ServiceGroup(services: [server], logger: logger).run()
            } catch {
                Invariant.fail("the server failed: \(error)")
            }
        }
        guard ready.wait(timeout: .now() + 60) == .success else { Invariant.fail("the server did not start within 60 s") }
        self.generator = MessageGenerator(methods: Self.discover(socket: socket), frameLimit: Self.frameLimit)
    }

    /// The methods and their first example's params, from `rpc.discover`.
    static func discover(socket: String) -> [MessageGenerator.Method] {
        let connection = LineSocket(path: socket)
        let deadline = ContinuousClock.now + .seconds(10)
        connection.send(MessageGenerator.line(id: .number("1"), method: "rpc.discover", params: nil) + [0x0A], until: deadline)
        guard let line = connection.readLine(until: deadline), let reply = try? ReferenceJSON.parse(line),
            case .array(let methods)? = reply.last("result")?.last("methods")
        else { Invariant.fail("rpc.discover gave no method list") }
        return methods.compactMap { method in
            guard case .string(let name)? = method.last("name") else { return nil }
            var params: [JSONTree.Member] = []
            if case .array(let examples)? = method.last("examples"), case .array(let pairs)? = examples.first?.last("params") {
                for pair in pairs {
                    if case .string(let key)? = pair.last("name"), let value = pair.last("value") {
                        params.append(JSONTree.Member(key: key, value: value))
                    }
                }
            }
            return MessageGenerator.Method(name: String(decoding: name, as: UTF8.self), example: .object(params))
        }
    }

    func run(_ input: [UInt8]) {
        var bytes = FuzzBytes(input)
        let connections: [[[UInt8]]]
        if input.first == UInt8(ascii: "{") || input.first == UInt8(ascii: "[") {
            connections = Self.rawConnections(input)
        } else {
            connections = self.generator.generate(&bytes)
        }
        if ProcessInfo.processInfo.environment["GUILD_FUZZ_VERBOSE"] != nil {
            for (index, lines) in connections.enumerated() {
                for line in lines {
                    let text = "connection \(index): \(String(decoding: line.prefix(300), as: UTF8.self))\n"
                    FileHandle.standardError.write(Data(text.utf8))
                }
            }
        }
        // Generous: the daemon runs in this process, built with address sanitizer and coverage counters (several
        // times slower), beside libFuzzer. A wedged daemon never answers (libFuzzer's -timeout=40 catches a hang);
        // the one-second bound is asserted on the real guildd by LivenessTests.
        let deadline = ContinuousClock.now + .seconds(15)
        let sockets = connections.map { _ in LineSocket(path: self.socket) }
        for (socket, lines) in zip(sockets, connections) {
            socket.send(lines.flatMap { $0 + [0x0A] }, until: deadline)
        }
        for (socket, lines) in zip(sockets, connections) {
            ReplyCheck.check(socket, lines: lines, frameLimit: Self.frameLimit, until: deadline)
        }
        self.probe(displayName: String(decoding: bytes.run(limit: 24), as: UTF8.self))
    }

    /// Raw mode: the input's lines, with `---` lines separating connections.
    static func rawConnections(_ input: [UInt8]) -> [[[UInt8]]] {
        var connections: [[[UInt8]]] = [[]]
        for line in input.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if Array(line) == Array("---".utf8) {
                connections.append([])
            } else {
                connections[connections.count - 1].append(Array(line))
            }
        }
        if connections[connections.count - 1].last?.isEmpty == true { connections[connections.count - 1].removeLast() }
        return connections.filter { !$0.isEmpty }
    }

    /// The liveness and store round-trip probe, on a fresh connection.
    func probe(displayName: String) {
        let connection = LineSocket(path: self.socket)
        // One deadline for the four calls. The one-second bound is asserted on the real guildd (LivenessTests);
        // here the daemon shares the process with libFuzzer, built with address sanitizer and coverage counters,
        // and a call can wait seconds behind the previous input's writes. A wedged daemon never answers.
        let deadline = ContinuousClock.now + .seconds(10)
        /// The reply, or nil when none came and the liveness check is skipped (the probe then ends).
        func call(_ method: String, _ params: JSONTree?) -> JSONTree? {
            connection.send(MessageGenerator.line(id: .text("live"), method: method, params: params) + [0x0A], until: deadline)
            while true {
                guard let line = connection.readLine(until: deadline) else {
                    if Invariant.skipped("liveness") {
                        Invariant.warn("\(method) got no answer within the probe's 10 s after the input; not enforced")
                        return nil
                    }
                    Invariant.fail("LIVENESS: \(method) got no answer within the probe's 10 s after the input")
                }
                guard let reply = try? ReferenceJSON.parse(line) else { Invariant.fail("probe reply is not JSON", bytes: line) }
                if reply.last("id") == .text("live") { return reply }
            }
        }
        guard let ping = call("system.ping", nil) else { return }
        Invariant.check(ping.last("result") == .text("pong"), "system.ping did not answer pong: \(ping)")
        guard let registered = call("user.registerPseudo", .object([JSONTree.Member("displayName", .text("probe"))])) else { return }
        guard let userID = registered.last("result")?.last("user")?.last("userID") else {
            Invariant.fail("user.registerPseudo failed: \(registered)")
        }
        guard let updated = call("user.update", .object([JSONTree.Member("displayName", .text(displayName))])) else { return }
        guard let read = call("user.get", .object([JSONTree.Member("userID", userID)])) else { return }
        guard let stored = read.last("result") else { Invariant.fail("user.get failed: \(read)") }
        if let acknowledged = updated.last("result"), !Invariant.skipped("round-trip") {
            Invariant.check(
                acknowledged.last("displayName") == stored.last("displayName"),
                "user.update acknowledged displayName \(String(describing: acknowledged.last("displayName"))) but user.get reads "
                    + "\(String(describing: stored.last("displayName")))",
                bytes: Array(displayName.utf8)
            )
        }
    }
}
