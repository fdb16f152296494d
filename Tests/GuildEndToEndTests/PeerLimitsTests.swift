import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Limits on what one unprivileged local user can hold, driven by a process running as uid 65534:
/// connections per uid (root still gets in) and idle connections without a session.
@Suite(.timeLimit(.minutes(2)))
struct PeerLimitsTests {
    /// Opens `count` connections, reads what each is told within `wait` seconds, optionally binding a session
    /// on the first one; prints one JSON report.
    static let driver = """
        import json, socket, sys, time
        path, count, wait, session = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "session"
        conns = []
        for _ in range(count):
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            conns.append(s)
        if session:
            conns[0].sendall(b'{"jsonrpc":"2.0","id":1,"method":"user.registerPseudo","params":{}}\\n')
            conns[0].settimeout(5)
            conns[0].recv(65536)
        time.sleep(wait)
        report = []
        for s in conns:
            s.setblocking(False)
            try:
                data = s.recv(65536)
                if data == b"":
                    report.append({"closed": True})
                else:
                    message = json.loads(data.split(b"\\n")[0])
                    error = message.get("error") or {}
                    closed = False
                    try:
                        closed = s.recv(65536) == b""
                    except BlockingIOError:
                        pass
                    report.append({"code": error.get("code"), "reason": (error.get("data") or {}).get("reason"),
                                   "scope": (error.get("data") or {}).get("scope"), "closed": closed})
            except BlockingIOError:
                report.append({"open": True})
        print(json.dumps(report))
        """

    private func drive(_ socket: String, connections: Int, wait: Double, session: Bool = false) async throws -> [[String: Any]] {
        let python = ["python3", "-c", Self.driver, socket, "\(connections)", "\(wait)", session ? "session" : "none"]
        let result = try await run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env"] + python)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result.stdout)")
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run the peer as another uid"))
    func oneUidCannotTakeEverySlotAndRootAlwaysGetsIn() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await startDaemon(scratch, ["--socket-mode", "0666", "--max-connections-per-uid", "3"])
        defer { daemon.terminate() }
        let report = try await self.drive(scratch.socket, connections: 5, wait: 0.5)
        #expect(report.prefix(3).allSatisfy { $0["open"] as? Bool == true }, "\(report)")
        for refused in report.dropFirst(3) {
            #expect(refused["code"] as? Int == -32002, "\(refused)")
            #expect(refused["reason"] as? String == "TOO_MANY_CONNECTIONS")
            #expect(refused["scope"] as? String == "uid")
        }
        let root = try RawConnection(path: scratch.socket)
        #expect(await root.pings())
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run the peer as another uid"))
    func idleConnectionsWithoutASessionAreClosed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await startDaemon(scratch, ["--socket-mode", "0666", "--idle-timeout", "1"])
        defer { daemon.terminate() }
        // The first connection binds a session and stays; the other two say nothing and are closed.
        let report = try await self.drive(scratch.socket, connections: 3, wait: 2.5, session: true)
        #expect(report.count == 3)
        #expect(report.first?["open"] as? Bool == true, "\(report)")
        for idle in report.dropFirst() {
            #expect(idle["code"] as? Int == -32006, "\(idle)")
            #expect(idle["reason"] as? String == "IDLE_TIMEOUT")
        }
        // Root's own idle connection is an admin's: it stays.
        let root = try RawConnection(path: scratch.socket)
        try await Task.sleep(for: .seconds(1.5))
        #expect(await root.pings())
    }
}
