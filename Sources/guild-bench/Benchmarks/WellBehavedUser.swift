import Foundation
import Glibc
import GuildProtocol

/// An ordinary user on its own connection, one call at a time with a 10 ms pause between calls:
/// `system.ping`, `session.whoami`, `group.sendMessage` to its group, `user.get`, round and round. Each call's
/// round trip is timed; a call that gets no reply within `timeout` counts as that long and the connection
/// is replaced (a failed attempt to connect and authenticate counts as a sample of its duration too). The connection is kept from one ``run(seconds:stop:)`` to the next, as a user who was
/// connected before the hostile peers came would.
///
/// Not thread-safe: one thread at a time runs it.
final class WellBehavedUser: @unchecked Sendable {
    /// Round-trip times and failures of one run.
    struct Result: Sendable {
        var latencies: [Double] = []
        var errors = 0
        var timeouts = 0
        var firstError: String?
        var seconds = 0.0

        func percentile(_ p: Double) -> Double {
            Stats.percentile(self.latencies, p)
        }

        func describe() -> String {
            let ms = MeasurementUnit.milliseconds
            return "\(self.latencies.count) calls in \(Format.decimal(self.seconds, digits: 0)) s, "
                + "p50 \(ms.format(self.percentile(50))), p99 \(ms.format(self.percentile(99))), "
                + "max \(ms.format(self.latencies.max() ?? .nan)); \(self.errors) errors, \(self.timeouts) timeouts"
                + (self.firstError.map { " (first: \($0.prefix(160)))" } ?? "")
        }
    }

    let socketPath: String
    let user: PseudoUser
    let groupID: String
    let timeout = 5.0
    private var connection: LineConnection?

    init(socketPath: String, user: PseudoUser, groupID: String) {
        self.socketPath = socketPath
        self.user = user
        self.groupID = groupID
    }

    deinit {
        self.connection?.close()
    }

    func close() {
        self.connection?.close()
        self.connection = nil
    }

    /// Blocking: calls until `seconds` passed or `stop` is set.
    func run(seconds: Double, stop: StopFlag?) throws -> Result {
        var result = Result()
        let started = monotonicNanos()
        let deadline = started + UInt64(seconds * 1e9)
        var step = 0
        while monotonicNanos() < deadline, !(stop?.isSet ?? false) {
            if self.connection == nil {
                // A user who cannot get a connection waits too: the attempt counts as a sample.
                let attemptStarted = monotonicNanos()
                defer { if self.connection == nil { result.latencies.append(Double(monotonicNanos() - attemptStarted) / 1e6) } }
                do {
                    let fresh = try LineConnection(path: self.socketPath, timeout: self.timeout)
                    _ = try fresh.call(SessionMethods.Authenticate.self, .init(accessToken: self.user.accessToken))
                    self.connection = fresh
                } catch {
                    result.errors += 1
                    if result.firstError == nil { result.firstError = "connect/authenticate: \(error)" }
                    usleep(100_000)
                    continue
                }
            }
            guard let open = self.connection else { continue }
            let callStarted = monotonicNanos()
            do {
                switch step % 4 {
                case 0: _ = try open.call(SystemMethods.Ping.self, NoParams())
                case 1: _ = try open.call(SessionMethods.WhoAmI.self, NoParams())
                case 2: _ = try open.call(GroupMethods.SendMessage.self, .init(groupID: self.groupID, text: "hello \(step)"))
                default: _ = try open.call(UserMethods.Get.self, .init())
                }
                result.latencies.append(Double(monotonicNanos() - callStarted) / 1e6)
            } catch let error as RawSocket.Failure {
                // No reply in time, or the connection is gone: it cannot be trusted for the next call.
                result.latencies.append(Double(monotonicNanos() - callStarted) / 1e6)
                result.timeouts += 1
                if result.firstError == nil { result.firstError = "\(error)" }
                open.close()
                self.connection = nil
            } catch {
                result.latencies.append(Double(monotonicNanos() - callStarted) / 1e6)
                result.errors += 1
                if result.firstError == nil { result.firstError = "\(error)" }
            }
            step += 1
            usleep(10_000)
        }
        result.seconds = Double(monotonicNanos() - started) / 1e9
        return result
    }
}
