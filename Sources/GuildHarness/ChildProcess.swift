import Foundation
import Glibc
import Subprocess
import Synchronization
import SystemPackage

/// A process started through swift-subprocess, its standard streams on `/dev/null` or appended to files, so
/// nothing ever blocks on a pipe; its end is seen by swift-subprocess's monitor (a pidfd on Linux).
///
/// Not `Foundation.Process`: on Linux its `run()` finds the highest open descriptor by reading `/proc/self/fd`
/// and copies each entry's whole 256-byte name, which faults when a record sits at the end of the directory
/// buffer (about 1,300 descriptors open; swift-corelibs-foundation#5472, still in toolchain 6.3.1). A test
/// process with many in-process daemons, or a benchmark holding thousands of connections, reaches that.
/// swift-subprocess closes the child's other descriptors with `posix_spawn_file_actions_addclosefrom_np`.
public final class ChildProcess: Sendable {
    /// Where a standard output or error stream goes.
    public enum Destination: Sendable, Equatable {
        /// `/dev/null`.
        case discarded
        /// Appended to the file at this path, which is created if missing.
        case file(String)
        /// This open descriptor (a pipe's write end, say), which stays open here: the caller closes it.
        case descriptor(Int32)
    }

    /// The process id.
    public let pid: Int32
    /// The executable's path, for messages.
    public let executable: String
    private let end: End

    private init(pid: Int32, executable: String, end: End) {
        self.pid = pid
        self.executable = executable
        self.end = end
    }

    /// Starts `executable` with `arguments` in this process's environment, with `environment` applied on top
    /// (a nil value removes a variable), standard input on the descriptor `input` (which stays open here) or on
    /// `/dev/null`; returns once the process exists.
    public static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String?] = [:],
        workingDirectory: String? = nil,
        input: Int32? = nil,
        output: Destination = .discarded,
        error: Destination = .discarded
    ) async throws -> ChildProcess {
        let inputDescriptor = try input.map { FileDescriptor(rawValue: $0) } ?? FileDescriptor.open("/dev/null", .readOnly, options: [.closeOnExec])
        defer { if input == nil { try? inputDescriptor.close() } }
        let outputDescriptor = try Self.open(output)
        defer { if case .descriptor = output {} else { try? outputDescriptor.close() } }
        let errorDescriptor = try Self.open(error)
        defer { if case .descriptor = error {} else { try? errorDescriptor.close() } }
        var overrides: [Environment.Key: String?] = [:]
        for (key, value) in environment {
            guard let key = Environment.Key(rawValue: key) else { throw DaemonError("bad environment variable name \(key)") }
            overrides[key] = value
        }
        let end = End()
        let configuration = Configuration(
            executable: .path(FilePath(executable)),
            arguments: Arguments(arguments),
            environment: Environment.inherit.updating(overrides),
            workingDirectory: workingDirectory.map { FilePath($0) }
        )
        let started = StartSignal()
        let pid: Int32 = try await withCheckedThrowingContinuation { continuation in
            started.set(continuation)
            // Unstructured on purpose: the child outlives this call (a daemon lives for a whole test), and
            // swift-subprocess's `run` returns only when it ends. The task holds nothing but the descriptors it
            // was handed, which `run` has duplicated into the child before the body is called.
            Task.detached {
                do {
                    let result = try await Subprocess.run(
                        configuration,
                        input: .fileDescriptor(inputDescriptor, closeAfterSpawningProcess: false),
                        output: .fileDescriptor(outputDescriptor, closeAfterSpawningProcess: false),
                        error: .fileDescriptor(errorDescriptor, closeAfterSpawningProcess: false)
                    ) { execution in
                        _ = started.resume(with: .success(execution.processIdentifier.value))
                    }
                    switch result.terminationStatus {
                    case .exited(let code): end.record(code)
                    case .signaled(let signal): end.record(signal)
                    }
                } catch {
                    if !started.resume(with: .failure(DaemonError("cannot start \(executable): \(error)"))) {
                        // Started, then swift-subprocess lost track of it: say so, and let the kernel answer.
                        FileHandle.standardError.write(Data("  watching pid of \(executable) failed: \(error)\n".utf8))
                        end.giveUp()
                    }
                }
            }
        }
        return ChildProcess(pid: pid, executable: executable, end: end)
    }

    /// The status the process ended with (its exit code, or the signal that ended it); nil while it runs.
    ///
    /// Until swift-subprocess's task has recorded the end, this asks the kernel with `waitid(WNOWAIT)`, which
    /// leaves the ended child for swift-subprocess to reap, and keeps the answer: synchronous callers (clean-up
    /// at exit, which may run while the concurrency pool is busy) see an exit as soon as it happens. (Between
    /// swift-subprocess's reaping and its task's recording, an end nobody asked about yet reads as nil for that
    /// moment.)
    public var endedStatus: Int32? {
        if let status = self.end.status { return status }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(self.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
            info._sifields._sigchld.si_pid == self.pid
        else { return nil }
        return self.end.record(info._sifields._sigchld.si_status)
    }

    /// Whether the process has ended (see ``endedStatus``).
    public var hasEnded: Bool { self.endedStatus != nil }

    /// Whether the process still runs.
    public var isRunning: Bool { !self.hasEnded }

    /// Sends `signal` to the process, unless it has ended.
    public func signal(_ signal: Int32) {
        if !self.hasEnded { kill(self.pid, signal) }
    }

    /// Waits for the end, looking every 2 ms; returns the status, or nil after `timeout` seconds.
    public func wait(timeout: Double) async -> Int32? {
        let deadline = Deadline(seconds: timeout)
        while true {
            if let status = self.endedStatus { return status }
            if deadline.hasPassed { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits for the end, however long it takes, looking every 2 ms; returns the status.
    @discardableResult
    public func wait() async -> Int32 {
        while true {
            if let status = self.endedStatus { return status }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Blocks the calling thread until the process has ended, looking every 2 ms; returns its status. For
    /// synchronous clean-up only.
    @discardableResult
    public func waitUntilEnded() -> Int32 {
        while true {
            if let status = self.endedStatus { return status }
            usleep(2_000)
        }
    }

    private static func open(_ destination: Destination) throws -> FileDescriptor {
        switch destination {
        case .descriptor(let descriptor):
            return FileDescriptor(rawValue: descriptor)
        case .discarded:
            return try FileDescriptor.open("/dev/null", .writeOnly, options: [.closeOnExec])
        case .file(let path):
            do {
                return try FileDescriptor.open(
                    FilePath(path),
                    .writeOnly,
                    options: [.append, .create, .closeOnExec],
                    permissions: [.ownerReadWrite, .groupRead, .otherRead]
                )
            } catch {
                throw DaemonError("cannot open \(path): \(error)")
            }
        }
    }
}

extension ChildProcess {
    /// The recorded end: set once by the task that ran the process.
    private final class End: Sendable {
        private enum State {
            case running
            case ended(Int32)
            /// swift-subprocess stopped watching; ``ChildProcess/endedStatus`` asks the kernel instead.
            case unknown
        }

        private let state = Mutex(State.running)

        var status: Int32? {
            self.state.withLock { state in
                if case .ended(let status) = state { return status }
                return nil
            }
        }

        /// Keeps `status` unless an end was recorded already; returns the recorded one.
        @discardableResult
        func record(_ status: Int32) -> Int32 {
            self.state.withLock { state in
                if case .ended(let recorded) = state { return recorded }
                state = .ended(status)
                return status
            }
        }

        func giveUp() { self.state.withLock { $0 = .unknown } }
    }

    /// Hands the pid (or the failure to start) from the running task to ``spawn(_:_:environment:workingDirectory:input:output:error:)``, once.
    private final class StartSignal: Sendable {
        private let continuation = Mutex<CheckedContinuation<Int32, any Error>?>(nil)

        func set(_ continuation: CheckedContinuation<Int32, any Error>) {
            self.continuation.withLock { $0 = continuation }
        }

        /// Resumes the waiting caller; false when it was resumed already.
        @discardableResult
        func resume(with result: Result<Int32, any Error>) -> Bool {
            guard let continuation = self.continuation.withLock({ $0.take() }) else { return false }
            continuation.resume(with: result)
            return true
        }
    }
}
