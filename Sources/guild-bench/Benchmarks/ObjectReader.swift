import ArgumentParser
import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// `guild-bench object-reader` (hidden): the unprivileged reader of the `objects` benchmark. The benchmark
/// runs it as uid 65534 (under `setpriv`), so that the daemon checks its ACLs (an admin peer skips them). It
/// authenticates one blocking raw connection with `--token`, then times sequential `system.ping` and
/// `object.get` round trips, interleaved in chunks so that load changes touch both alike, and prints one JSON
/// line of sorted samples (µs).
struct ObjectReader: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "object-reader",
        abstract: "Internal: the unprivileged object reader of the objects benchmark.",
        shouldDisplay: false
    )

    struct Samples: Codable, Sendable {
        var ping: [Double]
        var get: [Double]
    }

    @Option var socket: String
    @Option var token: String
    @Option var scope: String
    @Option var bucket: String
    @Option var objectID: String
    @Option var calls: Int = 10_000

    func run() throws {
        let connection = try LineConnection(path: self.socket, timeout: 10)
        defer { connection.close() }
        _ = try connection.call(SessionMethods.Authenticate.self, .init(accessToken: self.token))
        let get = try RawRPC.request(
            ObjectMethods.Get.self,
            .init(scope: self.scope, bucket: self.bucket, objectID: self.objectID),
            id: 2
        )
        let ping = Array(#"{"jsonrpc":"2.0","id":1,"method":"system.ping"}"#.utf8) + [0x0A]
        let expectedObject = Array(#""_id":""#.utf8) + Array(self.objectID.utf8)
        var samples = Samples(ping: [], get: [])
        let chunk = 500
        var done = 0
        while done < self.calls {
            for _ in 0..<chunk {
                let start = monotonicNanos()
                try connection.send(ping)
                let reply = try connection.readLine()
                samples.ping.append(Double(monotonicNanos() - start) / 1e3)
                guard RawRPC.contains(reply, Array("pong".utf8)) else { throw DaemonError("ping replied \(RawRPC.preview(reply))") }
            }
            for _ in 0..<chunk {
                let start = monotonicNanos()
                try connection.send(get)
                let reply = try connection.readLine()
                samples.get.append(Double(monotonicNanos() - start) / 1e3)
                guard RawRPC.contains(reply, expectedObject) else { throw DaemonError("object.get replied \(RawRPC.preview(reply))") }
            }
            done += chunk
        }
        samples.ping.sort()
        samples.get.sort()
        print(String(decoding: try JSONEncoder().encode(samples), as: UTF8.self))
    }
}
