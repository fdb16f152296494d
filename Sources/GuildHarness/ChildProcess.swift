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
                        // Started, then swift-subprocess lost track of it (its pidfd monitor failed): say so, and
                        // end the waits with an unknown status rather than leave them hanging.
                        FileHandle.standardError.write(Data("  watching \(executable) failed: \(error); its status is unknown\n".utf8))
                        end.record(-1)
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

    /// Waits for the end; returns the status, or nil if the process still runs after `timeout` seconds (or when
    /// the task is cancelled).
    ///
    /// When the time is up the kernel is asked too (``endedStatus``): swift-subprocess's task, which records the
    /// end, runs on the concurrency pool, and a pool kept busy past the timeout must not turn an ended process
    /// into a hang.
    public func wait(timeout: Double) async -> Int32? {
        if let status = self.endedStatus { return status }
        return await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await self.end.wait() }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return self.endedStatus
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Waits for the end, however long it takes; returns the status (-1 if the task is cancelled first).
    @discardableResult
    public func wait() async -> Int32 {
        if let status = self.endedStatus { return status }
        return await self.end.wait() ?? -1
    }

    /// Runs `executable` to its end (SIGKILL after `timeout` seconds, status -1), its standard output and error
    /// in files that are removed afterwards; returns the status and what it wrote.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String?] = [:],
        workingDirectory: String? = nil,
        timeout: Double = 120
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let files = "/tmp/gh-run-\(UUID().uuidString)"
        defer {
            unlink(files + ".out")
            unlink(files + ".err")
        }
        let process = try await Self.spawn(
            executable,
            arguments,
            environment: environment,
            workingDirectory: workingDirectory,
            output: .file(files + ".out"),
            error: .file(files + ".err")
        )
        let status = await process.wait(timeout: timeout) ?? -1
        if status == -1 {
            process.signal(SIGKILL)
            _ = await process.wait(timeout: 5)
        }
        func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (status, read(files + ".out"), read(files + ".err"))
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
    /// The recorded end, set once (by the task that ran the process, or by the first ``endedStatus`` that saw it),
    /// and the waits for it.
    private final class End: Sendable {
        private struct State {
            var status: Int32?
            var waiters: [UInt64: CheckedContinuation<Int32?, Never>] = [:]
            var nextWaiter: UInt64 = 0
        }

        private let state = Mutex(State())

        var status: Int32? { self.state.withLock { $0.status } }

        /// Keeps `status` unless an end was recorded already, and wakes the waits; returns the recorded status.
        @discardableResult
        func record(_ status: Int32) -> Int32 {
            let (recorded, waiters) = self.state.withLock { state in
                if let recorded = state.status { return (recorded, [CheckedContinuation<Int32?, Never>]()) }
                state.status = status
                defer { state.waiters.removeAll() }
                return (status, Array(state.waiters.values))
            }
            for waiter in waiters { waiter.resume(returning: recorded) }
            return recorded
        }

        /// The status once recorded; nil if the task is cancelled first.
        func wait() async -> Int32? {
            let id = self.state.withLock { state in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                    let now: Int32?? = self.state.withLock { state in
                        if let status = state.status { return .some(status) }
                        if Task.isCancelled { return .some(nil) }
                        state.waiters[id] = continuation
                        return .none
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume(returning: nil)
            }
        }
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
