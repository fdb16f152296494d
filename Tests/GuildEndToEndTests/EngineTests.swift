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
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let client = try await GuildClient.connect(path: scratch.socket)
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
    }
}
