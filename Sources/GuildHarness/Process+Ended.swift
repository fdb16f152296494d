import Foundation
import Glibc

extension Process {
    /// The status the process ended with, as `terminationStatus` gives it (its exit code, or the signal that
    /// ended it); nil while it runs.
    ///
    /// Foundation's `isRunning` on Linux turns false only when a socket it hands the child is closed at both
    /// ends, and a process spawned at the same moment from another thread may inherit that socket and keep it
    /// open for as long as it lives (swift-corelibs-foundation#4795): a child that exited can look alive for
    /// seconds, or forever to `waitUntilExit()`. So this asks the kernel too, with `waitid(WNOWAIT)`, which
    /// leaves the ended child for Foundation to reap.
    public var endedStatus: Int32? {
        if !self.isRunning { return self.terminationStatus }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(self.processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
            info._sifields._sigchld.si_pid == self.processIdentifier
        else { return nil }
        return info._sifields._sigchld.si_status
    }

    /// Whether the process has ended (see ``endedStatus``).
    public var hasEnded: Bool { self.endedStatus != nil }

    /// Blocks until the process has ended, looking every 2 ms (where `waitUntilExit()` could wait forever; see
    /// ``endedStatus``); returns its status.
    @discardableResult
    public func waitUntilEnded() -> Int32 {
        while true {
            if let status = self.endedStatus { return status }
            usleep(2_000)
        }
    }
}
