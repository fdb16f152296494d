import Foundation
import Testing

extension UnprivilegedPython {
    /// The Python client's directory (`clients/python`), for a script's `sys.path`.
    public static let clientDirectory = Build.packageRoot.appendingPathComponent("clients/python").path

    /// What scripts run by ``report(_:arguments:daemonArguments:timeout:)`` start with: the client imported,
    /// the socket as `S`, an empty `report`, `err(fn)` (the error a call raised, as `code`, `message` and
    /// `data`, or None) and `user(name)` (a new user's connection with its session bound, its id as `user_id`).
    public static let clientPrelude = #"""
        import json, sys
        sys.path.insert(0, sys.argv[2])
        from guild_client import GuildClient, GuildError
        S = sys.argv[1]
        report = {}

        def err(fn):
            try:
                fn()
                return None
            except GuildError as e:
                return {"code": e.code, "message": e.message, "data": e.data}

        def user(name):
            c = GuildClient(S)
            c.user_id = c.call("user.register", {"username": name, "password": "pw-" + name})["user"]["userID"]
            return c

        """#

    /// Runs ``clientPrelude`` and `script` as uid 65534 against a fresh daemon (`--socket-mode 0666` and
    /// `daemonArguments`), with the socket, the client's directory and `arguments` as its arguments; returns the
    /// JSON object it prints last.
    public static func report(
        _ script: String,
        arguments: [String] = [],
        daemonArguments: [String] = [],
        timeout: Double = Child.runTimeout,
        inspect: (Scratch) throws -> Void = { _ in }
    ) async throws -> [String: Any] {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"] + daemonArguments)
        defer { daemon.terminate() }
        let run = try await Self.run(Self.clientPrelude + script, [scratch.socket, Self.clientDirectory] + arguments, timeout: timeout)
        #expect(run.status == 0, "\(run.stderr)")
        try inspect(scratch)
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
    }

    /// An `err(fn)` result of a report: the error's code, `data.reason` and `data.field`; nil when the call
    /// succeeded.
    public static func refusal(_ value: Any?) -> [AnyHashable]? {
        guard let error = value as? [String: Any] else { return nil }
        let data = error["data"] as? [String: Any] ?? [:]
        return [error["code"] as? Int ?? 0, data["reason"] as? String ?? "", data["field"] as? String ?? ""]
    }
}
