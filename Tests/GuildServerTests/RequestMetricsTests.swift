import CoreMetrics
import GuildProtocol
import MetricsTestKit
import Testing

@testable import GuildServer

@Suite("RequestMetrics")
struct RequestMetricsTests {
    @Test("a method's instruments are made by its first request, not before")
    func firstRequestMakesItsInstruments() throws {
        let factory = TestMetrics()
        let metrics = RequestMetrics(methods: ["system.ping", "user.update"], factory: factory)
        #expect(factory.counters.isEmpty)
        #expect(factory.timers.isEmpty)

        let ping = metrics.slot(for: "system.ping")
        #expect(!ping.isMade)
        metrics.record(ping, started: RequestMetrics.now(), result: .success([]))
        metrics.record(
            ping,
            started: RequestMetrics.now(),
            result: .failure(RPCError(code: .invalidParams, message: "no", reason: ErrorReason.invalidParams))
        )
        #expect(ping.isMade)
        #expect(!metrics.slot(for: "user.update").isMade)

        #expect(try factory.expectCounter("guild_requests_total", [("method", "system.ping")]).totalValue == 2)
        #expect(try factory.expectTimer(RequestMetrics.latencyLabel, [("method", "system.ping")]).values.count == 2)
        #expect(try factory.expectCounter("guild_request_errors_total", [("code", "\(ErrorCode.invalidParams.rawValue)")]).totalValue == 1)
        #expect(factory.counters.filter { $0.label == "guild_requests_total" }.count == 1, "only the called method has instruments")
    }

    @Test("prepareAll makes every method's instruments, (unknown)'s too, and keeps those already made")
    func prepareAllListsEveryMethod() throws {
        let factory = TestMetrics()
        let metrics = RequestMetrics(methods: ["system.ping", "user.update", "group.create"], factory: factory)
        let ping = metrics.slot(for: "system.ping")
        metrics.record(ping, started: RequestMetrics.now(), result: .success([]))
        let made = ping.instruments

        metrics.prepareAll()
        #expect(ping.instruments === made)
        for method in ["system.ping", "user.update", "group.create", "(unknown)"] {
            #expect(metrics.slot(for: method).isMade, "\(method)")
            _ = try factory.expectCounter("guild_requests_total", [("method", method)])
        }
        #expect(try factory.expectCounter("guild_requests_total", [("method", "system.ping")]).totalValue == 1)
        #expect(try factory.expectCounter("guild_requests_total", [("method", "user.update")]).totalValue == 0)
    }

    @Test("a name nobody registered is counted as (unknown)")
    func unregisteredNamesShareOneLabel() throws {
        let factory = TestMetrics()
        let metrics = RequestMetrics(methods: ["system.ping"], factory: factory)
        #expect(metrics.slot(for: "no.such") === metrics.slot(for: "other.name"))
        metrics.record(nil, started: RequestMetrics.now(), result: .success([]))
        metrics.record(metrics.slot(for: "no.such"), started: RequestMetrics.now(), result: .success([]))
        #expect(try factory.expectCounter("guild_requests_total", [("method", "(unknown)")]).totalValue == 2)
    }

    @Test("slots made from many threads at once end with one set of instruments each")
    func concurrentFirstUse() async throws {
        let factory = TestMetrics()
        let names = (0..<50).map { "area.method\($0)" }
        let metrics = RequestMetrics(methods: names, factory: factory)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for name in names { metrics.record(metrics.slot(for: name), started: RequestMetrics.now(), result: .success([])) }
                }
            }
        }
        for name in names {
            #expect(try factory.expectCounter("guild_requests_total", [("method", name)]).totalValue == 8, "\(name)")
        }
    }
}
