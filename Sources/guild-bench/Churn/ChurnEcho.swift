import ArgumentParser
import Foundation
import Glibc
import GuildHarness

/// `guild-bench churn-echo` (hidden): the floor of the churn benchmark. One thread per CPU blocks in `accept` on
/// one Unix socket; each accepted connection's first line is answered with the line guildd answers a ping with,
/// and the connection is closed once the peer has closed it, as guildd does. Plain system calls in a process of
/// its own: what a connection costs the kernel and a minimal server on this machine.
struct ChurnEcho: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "churn-echo",
        abstract: "Internal: the churn benchmark's floor (accept, answer one line, close).",
        shouldDisplay: false
    )

    @Option(help: "The Unix socket to serve on (a stale file is replaced).")
    var socket: String

    func run() throws {
        let listener = try RawSocket.listen(self.socket, backlog: 4096)
        let threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        for _ in 1..<threads {
            let thread = Thread { Self.serve(listener) }
            thread.start()
        }
        Self.serve(listener)
    }

    private static func serve(_ listener: Int32) -> Never {
        let reply = RawSocket.pongLine
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            while true {
                let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                if buffer[..<count].contains(0x0A) {
                    _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                }
            }
            close(connection)
        }
    }

    /// Starts `guild-bench churn-echo` on `socket` and waits until it accepts connections.
    static func launch(socket: String, logPath: String) async throws -> Daemon {
        try await GuildBench.launchServer("churn-echo", socket: socket, logPath: logPath)
    }
}
