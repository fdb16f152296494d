import Foundation
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Objects through the real daemon as unprivileged local users (uid 65534): the Python client's shared-bucket
/// example, where only a member of the group receives an object event and its body, membership changes take
/// effect on the very next event and read, and a non-member sees nothing.
@Suite(.endToEnd)
struct ObjectSharingTests {
    @Test(.enabled(if: getuid() == 0, "needs root to run a client as another uid"))
    func aGroupBucketIsSharedWithMembersOnly() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"])
        defer { daemon.terminate() }
        let example = PythonClientTests.clientDirectory + "/examples/shared_bucket.py"
        let result = try await Child.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "python3", example, "--socket", scratch.socket]
        )
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["bobGot"] as? String == "hello Bob")
        #expect(report["bobKind"] as? String == "objectCreated")
        #expect(report["carolGot"] is NSNull)
        #expect(report["bobAfterRemoval"] is NSNull)
        #expect(report["bobReadAfterRemoval"] as? String == "OBJECT_NOT_FOUND")
    }
}
