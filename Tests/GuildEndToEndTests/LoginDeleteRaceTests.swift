import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Synchronization
import Testing

/// `user.login` racing `user.delete` of the same user answers a documented error (INVALID_CREDENTIALS: the user
/// does not exist), never -32603 (before the fix: 152 of 1,600 logins failed with a foreign-key error storing the token).
@Suite(.endToEnd)
struct LoginDeleteRaceTests {
    @Test func loginRacingDeleteNeverAnswersInternalError() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let outcomes = Outcomes()
        let attempts = 400
        let workers = 8
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let owner = try await GuildClient.connect(path: scratch.socket)
                    let login = try await GuildClient.connect(path: scratch.socket)
                    let admin = try await GuildClient.connect(path: scratch.socket)  // root: an admin peer
                    defer {
                        Task {
                            await owner.close()
                            await login.close()
                            await admin.close()
                        }
                    }
                    for attempt in 0..<(attempts / workers) {
                        let name = "race-\(worker)-\(attempt)"
                        let registered = try await owner.call("user.register", params: ["username": .string(name), "password": "secret"])
                        let userID = try #require(registered["user"]?["userID"]?.stringValue)
                        async let deleted: JSONValue = admin.call("user.delete", params: ["userID": .string(userID)])
                        let outcome: String
                        do {
                            _ = try await login.call("user.login", params: ["username": .string(name), "password": "secret"])
                            outcome = "ok"
                        } catch let error as RPCError {
                            outcome = "\(error.code.rawValue) \(error.reason ?? "")"
                        }
                        _ = try await deleted
                        outcomes.counts.withLock { $0[outcome, default: 0] += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = outcomes.counts.withLock { $0 }
        print("login racing delete, \(attempts) attempts: \(seen)")
        #expect(seen.values.reduce(0, +) == attempts)
        #expect(Set(seen.keys).isSubset(of: ["ok", "40102 INVALID_CREDENTIALS"]), "\(seen)")
    }
}

/// The outcomes of the logins, counted across the racing tasks.
private final class Outcomes: Sendable {
    let counts = Mutex<[String: Int]>([:])
}
