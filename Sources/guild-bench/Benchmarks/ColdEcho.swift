import ArgumentParser
import Foundation
import Glibc

/// `guild-bench cold-echo` (hidden): the floor of the cold-start benchmark. `systemd-socket-activate` execs it
/// exactly as it execs guildd; it adopts the listening socket (descriptor 3, `LISTEN_FDS=1`), accepts one
/// connection, answers its first line with the line guildd answers a ping with, and exits when the peer has
/// closed. What it costs is what a Swift program of guildd's kind costs to start: exec, loading and relocating a
/// large statically linked executable, the runtime, swift-argument-parser.
struct ColdEcho: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cold-echo",
        abstract: "Internal: the cold-start benchmark's floor (run under systemd-socket-activate).",
        shouldDisplay: false
    )

    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    static let listener: Int32 = 3

    func run() throws {
        guard ProcessInfo.processInfo.environment["LISTEN_FDS"] == "1" else {
            throw ValidationError("cold-echo runs under systemd-socket-activate (LISTEN_FDS=1)")
        }
        let connection = accept(Self.listener, nil, nil)
        guard connection >= 0 else { throw ValidationError("accept failed: errno \(errno)") }
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var received = 0
        while !buffer[..<received].contains(0x0A) {
            let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress! + received, $0.count - received) }
            guard count > 0 else { return }
            received += count
            if received == buffer.count { received = 0 }
        }
        let reply = RawSocket.pongLine
        _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        while buffer.withUnsafeMutableBytes({ read(connection, $0.baseAddress, $0.count) }) > 0 {}
    }
}
