import GuildClient
import GuildProtocol
import GuildTestSupport
import Testing

/// The suites' daemons run on the engine the test run asks for (`GUILD_TEST_ENGINE`): `scripts/test` runs a
/// representative part of the end-to-end suites again on PostgreSQL, and this checks that they really do.
@Suite(.endToEnd)
struct EngineTests {
    @Test func theDaemonRunsOnTheEngineTheRunAsksFor() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--readers", "5", "--max-expensive", "2"])
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        // A read through the store (the registration binds the connection), so that a PostgreSQL read pool has
        // opened a connection.
        _ = try await client.call(UserMethods.Register.self, .init(username: "engine-reader", password: "pw-engine"))
        _ = try await client.call(UserMethods.Get.self, .init())
        let database = try #require(try await client.call(SystemMethods.Status.self).database)
        await client.close()
        #expect(database.engine == (TestEngine.isPostgreSQL ? "postgresql" : "sqlite"))
        #expect(database.connected)
        #expect(scratch.database.hasPrefix("postgresql://") == TestEngine.isPostgreSQL)
        // What the SQLite writer's commits really do, read back from that connection (GRDB once reset it to NORMAL).
        #expect(database.synchronous == (TestEngine.isPostgreSQL ? nil : "FULL"))
        // SQLite's memory is guildd's (its schema and statements at least); PostgreSQL's is the server's.
        if TestEngine.isPostgreSQL {
            #expect(database.heapBytes == nil)
        } else {
            #expect((database.heapBytes ?? 0) > 100_000)
        }
        // PostgreSQL's read pool, sized by --readers: at least the read above opened a connection and kept it; no
        // read holds one while nothing is asked (the health probe's reads are quick, so `reading` may be 1 at most).
        if TestEngine.isPostgreSQL {
            let pool = try #require(database.readPool)
            #expect(pool.size == 5)
            #expect((1...5).contains(pool.open), "\(pool)")
            #expect((0...1).contains(pool.reading) && pool.reading <= pool.open, "\(pool)")
        } else {
            #expect(database.readPool == nil)
        }
    }

    @Test func statusAndTopShowThePostgreSQLReadPool() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
        let readPool = try await client.call(SystemMethods.Status.self).database?.readPool
        await client.close()
        #expect((readPool != nil) == TestEngine.isPostgreSQL)
        let status = try await Child.run(Build.guildctl, ["status", "--socket", scratch.socket])
        let top = try await Child.run(Build.guildctl, ["top", "--socket", scratch.socket, "--count", "1"])
        #expect(status.status == 0 && top.status == 0, "\(status.stderr) \(top.stderr)")
        let screen = try #require(TopTests.screens(top.stdout).first, "\(top.stdout)")
        if TestEngine.isPostgreSQL {
            #expect(status.stdout.contains("database.readPool.size:"), "\(status.stdout)")
            let size = try #require(readPool?.size)
            #expect(screen["read pool"]?.hasSuffix(" open of \(size)") == true, "\(top.stdout)")
        } else {
            #expect(!status.stdout.contains("readPool"), "\(status.stdout)")
            #expect(screen["read pool"] == nil, "\(top.stdout)")
        }
    }
}
