import Foundation
import GuildCore
import GuildJSON
import GuildStore

/// The floor under durable `object.create` through the socket: the same creates (`{"n": N}` in an app bucket, as
/// an admin) run straight into a `SQLiteStore` in the bench's own process by 16 tasks, one create in flight each,
/// through the same group commit, with no socket, framing, JSON-RPC or daemon threads. What the storage work and
/// its commits alone allow on this machine.
final class StoreFloor: Sendable {
    private let store: SQLiteStore
    private let objects: ObjectService
    private let caller = Caller(peer: PeerCredentials(uid: 0, gid: 0, pid: getpid()), isAdmin: true)

    init(path: String) throws {
        self.store = try SQLiteStore(configuration: .init(path: path))
        self.objects = ObjectService(store: self.store)
    }

    /// Creates/s by `tasks` concurrent creators for `duration` seconds.
    func measure(tasks: Int, duration: Double) async throws -> Double {
        let start = monotonicNanos()
        let deadline = start + UInt64(duration * 1e9)
        let created = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var count = 0
                    while monotonicNanos() < deadline {
                        _ = try await self.objects.create(
                            caller: self.caller,
                            scope: .app,
                            bucket: "writes",
                            body: ["n": .int(Int64(task * 10_000_000 + count))],
                            objectID: nil
                        )
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(created) / (Double(monotonicNanos() - start) / 1e9)
    }

    func close() throws {
        try self.store.close()
    }
}
