import Foundation
import GuildCore
import GuildStore
import GuildTestSupport
import Logging
import NIOCore
import NIOEmbedded
import ServiceLifecycle
import Synchronization
import Testing

@testable import GuildServer

/// guildd binds its socket beside the store's opening (``ServerListener``), before the server exists: nothing is
/// accepted until the server runs, a client that connects meanwhile is served then, and a listener no server
/// will serve goes away with its socket file. A listening socket that closes on its own stops the server.
@Suite(.timeLimit(.minutes(10)))
struct ServerListenerTests {
    @Test func aClientThatConnectsBeforeTheServerRunsIsServedOnceItRuns() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let socket = scratch.socket
        let listener = ServerListener(.path(socket, mode: 0o600), logger: Logger(label: "test"))
        let early = try await Self.connect(socket)
        await early.send(#"{"jsonrpc":"2.0","id":"early","method":"system.ping"}"# + "\n")
        // Bound and listening, but nothing reads the request before a server serves the socket.
        #expect(await early.readLine(timeout: 0.3) == nil)

        let store = try SQLiteStore(configuration: .init(path: scratch.path + "/guild.sqlite"))
        defer { try? store.close() }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let server = try await GuildServer.make(
            configuration: ServerConfiguration(listen: .path(socket, mode: 0o600), adminUIDs: [getuid()]),
            store: store,
            hasher: OffloadedPasswordHasher(PasswordHasher(logN: 4)),
            listener: listener,
            logger: logger
        )
        let group = ServiceGroup(services: [server], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let reply = try #require(await early.readJSON() as? [String: Any])
            #expect(reply["id"] as? String == "early")
            #expect(reply["result"] as? String == "pong")
            let later = try RawConnection(path: socket)
            #expect(await later.pings())
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test func aListenerNoServerServesClosesAndRemovesItsSocket() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let socket = scratch.socket
        let listener = ServerListener(.path(socket, mode: 0o600), logger: Logger(label: "test"))
        _ = try await Self.connect(socket)
        await listener.close()
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(throws: (any Error).self) { try RawConnection(path: socket) }
    }

    @Test func aListenerThatCouldNotBindLeavesTheLiveSocketAlone() async throws {
        try await TestDaemon.run { socket, _ in
            let second = ServerListener(.path(socket, mode: 0o600), logger: Logger(label: "test"))
            await second.close()
            // The running server's socket is still there and still served.
            #expect(FileManager.default.fileExists(atPath: socket))
            let connection = try RawConnection(path: socket)
            #expect(await connection.pings())
        }
    }

    @Test func aListeningSocketThatClosesOnItsOwnDrainsTheConnectionsAndFailsTheServer() async throws {
        await #expect(throws: GuildServer.ListenerClosed.self) {
            try await TestDaemon.run { socket, server in
                let open = try RawConnection(path: socket)
                #expect(await open.pings())
                // As NIO does after an accept error it cannot recover from: the channel closes, not through
                // stopAccepting() or a graceful shutdown.
                try await Self.closeOnItsOwn(server)
                // The open connection is drained and closed, not served on while every new client is refused.
                #expect(await open.isClosedByPeer())
                #expect(throws: (any Error).self) { try RawConnection(path: socket) }
            }
        }
    }

    @Test func aListeningSocketThatClosesOnItsOwnWithNoConnectionOpenFailsTheServer() async throws {
        // With nothing to drain, run() reaches its end at once: it must still see why the stream ended.
        await #expect(throws: GuildServer.ListenerClosed.self) {
            try await TestDaemon.run { socket, server in
                try await Self.closeOnItsOwn(server)
                #expect(throws: (any Error).self) { try RawConnection(path: socket) }
            }
        }
    }

    /// Closes the server's listening channel behind its back and returns once the server has seen it close: the
    /// close future's callbacks run in the order they were added, the server's first. (Returning as soon as the
    /// close itself completed let TestDaemon's graceful shutdown overtake them.)
    private static func closeOnItsOwn(_ server: GuildServer) async throws {
        let channel = try #require(server.listener.withLock { $0 })
        channel.close(promise: nil)
        try await channel.closeFuture.get()
    }

    /// Handing a connection to the server takes the same stack for the 20,000th connection as for the first. With
    /// the handler held as a bare closure in a `Mutex`, each hand-over wrapped it in two more reabstraction thunks:
    /// 20,000 connections made a chain of 40,000 frames (over a megabyte of stack), walked for every new one.
    /// On a thread with a 256 KiB stack, that overflows; here every call is as deep as the first.
    @Test func theAcceptPathTakesTheSameStackForEveryConnection() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let listener = ServerListener(.path(scratch.socket, mode: 0o600), logger: Logger(label: "test"))
        let depths = Mutex<[Int]>([])
        listener.acceptor.set { channel in
            depths.withLock { $0.append(Self.stackAddress()) }
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        let finished = AsyncStream.makeStream(of: Void.self)
        let thread = Thread {
            let channel = EmbeddedChannel()
            for _ in 0..<20_000 { _ = listener.acceptor.accept(channel) }
            _ = try? channel.finish()
            finished.continuation.finish()
        }
        thread.stackSize = 256 * 1024
        thread.start()
        for await _ in finished.stream {}
        await listener.close()
        let recorded = depths.withLock { $0 }
        #expect(recorded.count == 20_000)
        #expect(Set(recorded).count == 1, "stack depth varied by \((recorded.max() ?? 0) - (recorded.min() ?? 0)) bytes")
    }

    @inline(never)
    private static func stackAddress() -> Int {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
    }

    /// Connects once the listener has bound (binding runs on an event loop); the 60 s only end a hang.
    private static func connect(_ socket: String) async throws -> RawConnection {
        let deadline = Date().addingTimeInterval(60)
        while true {
            do {
                return try RawConnection(path: socket)
            } catch  where deadline.timeIntervalSinceNow > 0 {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }
}
