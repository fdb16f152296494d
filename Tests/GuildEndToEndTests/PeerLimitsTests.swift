import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Limits on what one unprivileged local user can hold, driven by a process running as uid 65534:
/// connections per uid (root still gets in) and idle connections without a session.
@Suite(.endToEnd)
struct PeerLimitsTests {
    /// Opens `count` connections (binding a session on the first one when asked) and waits until `closing` of
    /// them were told something by the daemon (a refusal, an idle notice) and closed; then pings the others.
    /// Prints one JSON report: for each connection `{"pong": true}` or what it was told and whether it was
    /// closed. Which connections the daemon refuses depends on the order it accepted them in.
    static let driver = """
        import json, select, socket, sys, time
        path, count, closing, session = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "session"
        conns = []
        for _ in range(count):
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.settimeout(10)
            conns.append(s)
        if session:
            conns[0].sendall(b'{"jsonrpc":"2.0","id":1,"method":"user.registerPseudo","params":{}}\\n')
            conns[0].recv(65536)
        report = [None] * count
        deadline = time.time() + 15
        while sum(r is not None for r in report) < closing and time.time() < deadline:
            waiting = [c for i, c in enumerate(conns) if report[i] is None and not (session and i == 0)]
            readable, _, _ = select.select(waiting, [], [], 0.2)
            for s in readable:
                line = s.recv(65536).split(b"\\n")[0]
                error = (json.loads(line) if line else {}).get("error") or {}
                data = error.get("data") or {}
                closed = s.recv(65536) == b""
                report[conns.index(s)] = {"code": error.get("code"), "reason": data.get("reason"), "scope": data.get("scope"), "closed": closed}
        for index, s in enumerate(conns):
            if report[index] is None:
                try:
                    s.sendall(b'{"jsonrpc":"2.0","id":"p","method":"system.ping"}\\n')
                    report[index] = {"pong": b'"pong"' in s.recv(65536)}
                except OSError as failure:
                    report[index] = {"failure": str(failure)}
        print(json.dumps(report))
        """

    private func drive(_ socket: String, connections: Int, closing: Int, session: Bool = false) async throws -> [[String: Any]] {
        let result = try await UnprivilegedPython.run(Self.driver, [socket, "\(connections)", "\(closing)", session ? "session" : "none"])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result.stdout)")
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run the peer as another uid"))
    func oneUidCannotTakeEverySlotAndRootAlwaysGetsIn() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666", "--max-connections-per-uid", "3"])
        defer { daemon.terminate() }
        let report = try await self.drive(scratch.socket, connections: 5, closing: 2)
        #expect(report.count { $0["pong"] as? Bool == true } == 3, "\(report)")
        let refusals = report.filter { $0["pong"] == nil }
        #expect(refusals.count == 2, "\(report)")
        for refused in refusals {
            #expect(refused["code"] as? Int == -32002, "\(refused)")
            #expect(refused["reason"] as? String == "TOO_MANY_CONNECTIONS")
            #expect(refused["scope"] as? String == "uid")
            #expect(refused["closed"] as? Bool == true)
        }
        let root = try RawConnection(path: scratch.socket)
        #expect(await root.pings())
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run the peer as another uid"))
    func idleConnectionsWithoutASessionAreClosed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666", "--idle-timeout", "1"])
        defer { daemon.terminate() }
        // The first connection binds a session and stays; the other two say nothing and are closed. The
        // session's connection is pinged only after they were, so it too sat idle past the timeout.
        let report = try await self.drive(scratch.socket, connections: 3, closing: 2, session: true)
        #expect(report.count == 3)
        #expect(report.first?["pong"] as? Bool == true, "\(report)")
        for idle in report.dropFirst() {
            #expect(idle["code"] as? Int == -32006, "\(idle)")
            #expect(idle["reason"] as? String == "IDLE_TIMEOUT")
            #expect(idle["closed"] as? Bool == true)
        }
        // Root's own idle connection is an admin's: it stays.
        let root = try RawConnection(path: scratch.socket)
        try await Task.sleep(for: .seconds(1.5))
        #expect(await root.pings())
    }
}
