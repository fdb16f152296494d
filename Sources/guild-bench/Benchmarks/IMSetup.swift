import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// A pseudo user registered for a benchmark, with the access token that binds a connection to it.
struct PseudoUser: Sendable {
    var userID: String
    var accessToken: String
}

/// Set-up shared by the IM group benchmarks (`avchatroom`, `member-paging`): many pseudo users registered
/// quickly, and JSON-RPC batches over ``LineConnection``.
enum IMSetup {
    /// Blocking: registers `count` pseudo users in JSON-RPC batches of `batchSize` `user.registerPseudo` calls,
    /// over `connections` connections at once. A batch holding a session-changing method runs its entries in
    /// order (each its own commit), so the parallelism comes from the connections, whose commits guildd groups.
    static func registerPseudoUsers(
        _ socketPath: String,
        count: Int,
        namePrefix: String,
        connections: Int = 32,
        batchSize: Int = 100
    ) throws -> [PseudoUser] {
        var users: [PseudoUser?] = Array(repeating: nil, count: count)
        var open: [LineConnection] = []
        defer { for connection in open { connection.close() } }
        for _ in 0..<min(connections, max(1, count)) {
            open.append(try LineConnection(path: socketPath, timeout: 120, capacity: 256 * 1024))
        }
        var next = 0
        while next < count {
            // One batch per connection, then all the replies.
            var sent: [(connection: LineConnection, first: Int, count: Int)] = []
            for connection in open where next < count {
                let size = min(batchSize, count - next)
                var requests: [[UInt8]] = []
                for index in next..<(next + size) {
                    requests.append(
                        try RawRPC.request(UserMethods.RegisterPseudo.self, .init(displayName: "\(namePrefix) \(index)"), id: index + 1)
                    )
                }
                try connection.send(Self.batch(requests))
                sent.append((connection, next, size))
                next += size
            }
            for batch in sent {
                let entries = try Self.decodeBatch(UserMethods.RegisterPseudo.self, try batch.connection.readLine())
                guard entries.count == batch.count else {
                    throw DaemonError("user.registerPseudo batch: \(entries.count) replies for \(batch.count) requests")
                }
                for (id, result) in entries {
                    let index = id - 1
                    guard index >= batch.first, index < batch.first + batch.count, users[index] == nil else {
                        throw DaemonError("user.registerPseudo batch: unexpected reply id \(id)")
                    }
                    users[index] = PseudoUser(userID: result.user.userID, accessToken: result.accessToken)
                }
            }
        }
        return users.map { $0! }
    }

    /// One batch line (with its `\n`) from request lines made by ``RawRPC/request(_:_:id:)``.
    static func batch(_ requests: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, request) in requests.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: request.last == UInt8(ascii: "\n") ? request.dropLast() : request[...])
        }
        bytes.append(contentsOf: Array("]\n".utf8))
        return bytes
    }

    private struct BatchEntry<R: Decodable>: Decodable {
        var id: Int?
        var result: R?
        var error: RPCError?
    }

    /// The results of a batch reply by request id (integer ids); throws the first error.
    static func decodeBatch<M: RPCMethod>(_ method: M.Type, _ reply: [UInt8]) throws -> [(id: Int, result: M.Result)] {
        let entries: [BatchEntry<M.Result>]
        do {
            entries = try RPCCoding.decode([BatchEntry<M.Result>].self, from: reply)
        } catch {
            throw DaemonError("\(M.name) batch: undecodable reply (\(error)): \(RawRPC.preview(reply))")
        }
        return try entries.map { entry in
            if let error = entry.error { throw DaemonError("\(M.name) failed in a batch: \(error)") }
            guard let id = entry.id, let result = entry.result else {
                throw DaemonError("\(M.name) batch: entry without id or result: \(RawRPC.preview(reply))")
            }
            return (id, result)
        }
    }
}
