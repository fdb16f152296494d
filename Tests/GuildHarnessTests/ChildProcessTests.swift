import Foundation
import GuildHarness
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The time limit only catches a hang. These tests start with the rest of the run's, hundreds at once; with
/// two busy loops beside the run on 2 vCPUs, `manyOpenDescriptorsAreNeitherAProblemNorInherited` (20 children in a
/// row) took 88-109 s in three clean-clone runs (2026-12-01), so the 2-minute limit it had was a race with the load.
@Suite(.timeLimit(.minutes(10)))
struct ChildProcessTests {
    /// A scratch file path under /tmp, removed by the caller.
    static func scratchPath(_ name: String) -> String { "/tmp/gh-\(UUID().uuidString.prefix(8).lowercased())-\(name)" }

    static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    @Test func statusIsTheExitCodeOrTheSignal() async throws {
        let exited = try await ChildProcess.spawn("/bin/sh", ["-c", "exit 3"])
        #expect(await exited.wait(timeout: 60) == 3)
        #expect(exited.hasEnded && !exited.isRunning)

        let sleeper = try await ChildProcess.spawn("/bin/sleep", ["600"])
        #expect(sleeper.isRunning && sleeper.endedStatus == nil)
        sleeper.signal(SIGKILL)
        #expect(await sleeper.wait(timeout: 60) == SIGKILL)
    }

    @Test func environmentWorkingDirectoryAndStreams() async throws {
        let output = Self.scratchPath("out")
        let errors = Self.scratchPath("err")
        defer {
            unlink(output)
            unlink(errors)
        }
        // No setenv here: other tests spawn at the same time, and the environment is not thread-safe.
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        try #require(ProcessInfo.processInfo.environment["HOME"] != nil)
        let child = try await ChildProcess.spawn(
            "/bin/sh",
            ["-c", #"echo "$PATH ${HOME-unset} $GUILD_HARNESS_ADDED $(pwd)"; echo oops >&2; cat"#],
            environment: ["HOME": String?.none, "GUILD_HARNESS_ADDED": "added"],
            workingDirectory: "/usr",
            output: .file(output),
            error: .file(errors)
        )
        // `cat` reads /dev/null: it ends at once instead of waiting for input.
        #expect(await child.wait(timeout: 60) == 0)
        #expect(Self.contents(output) == "\(path) unset added /usr\n")
        #expect(Self.contents(errors) == "oops\n")

        // Files are appended to, as a daemon's log is across restarts.
        let again = try await ChildProcess.spawn("/bin/echo", ["second"], output: .file(output))
        #expect(await again.wait(timeout: 60) == 0)
        #expect(Self.contents(output) == "\(path) unset added /usr\nsecond\n")
    }

    @Test func pipesGivenAsDescriptors() async throws {
        let input = Pipe()
        let output = Pipe()
        let child = try await ChildProcess.spawn(
            "/usr/bin/tr",
            ["a-z", "A-Z"],
            input: input.fileHandleForReading.fileDescriptor,
            output: .descriptor(output.fileHandleForWriting.fileDescriptor)
        )
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        input.fileHandleForWriting.write(Data("guild\n".utf8))
        try input.fileHandleForWriting.close()
        let read = output.fileHandleForReading.readDataToEndOfFile()
        #expect(String(decoding: read, as: UTF8.self) == "GUILD\n")
        #expect(await child.wait(timeout: 60) == 0)
    }

    @Test func missingExecutableThrows() async throws {
        await #expect(throws: DaemonError.self) {
            _ = try await ChildProcess.spawn("/nonexistent/guild-harness-nothing", [])
        }
    }

    /// Foundation's `Process.run()` faulted in CI with about 1,300 descriptors open (swift-corelibs-foundation
    /// #5472; see ``ChildProcess``). With 2,000 open, not close-on-exec, children start again and again, and none
    /// of them inherits one: each lists where its descriptors lead, and none leads to the marker file.
    @Test func manyOpenDescriptorsAreNeitherAProblemNorInherited() async throws {
        let marker = Self.scratchPath("marker")
        let listing = Self.scratchPath("fds")
        defer {
            unlink(marker)
            unlink(listing)
        }
        #expect(FileManager.default.createFile(atPath: marker, contents: nil))
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        for _ in 0..<2_000 {
            let descriptor = open(marker, O_RDONLY)
            try #require(descriptor >= 0, "open: \(String(cString: strerror(errno)))")
            descriptors.append(descriptor)
        }
        let script = "import os\nfor fd in os.listdir('/proc/self/fd'):\n    try: print(os.readlink('/proc/self/fd/' + fd))\n    except OSError: pass"
        for round in 0..<20 {
            unlink(listing)
            let child = try await ChildProcess.spawn("/usr/bin/env", ["python3", "-c", script], output: .file(listing))
            #expect(await child.wait(timeout: 60) == 0, "round \(round)")
            let targets = Self.contents(listing).split(separator: "\n")
            #expect(!targets.isEmpty, "round \(round): no listing")
            #expect(!targets.contains(where: { $0 == marker }), "round \(round): inherited \(targets.filter { $0 == marker }.count)")
        }
    }

    @Test func registryStopsAndForgetsWhatItStarted() async throws {
        let registry = ChildProcesses()
        let child = try await registry.launch("/bin/sleep", ["600"])
        #expect(child.isRunning)
        await registry.stop(child, timeout: 30)
        #expect(child.endedStatus == SIGTERM)

        let survivor = try await registry.launch("/bin/sleep", ["600"])
        registry.terminateAll(timeout: 30)
        #expect(survivor.hasEnded)
        #expect(await survivor.wait(timeout: 60) == SIGTERM)
        await #expect(throws: DaemonError.self) { _ = try await registry.launch("/bin/true", []) }
    }
}
