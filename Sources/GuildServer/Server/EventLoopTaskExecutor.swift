import NIOCore

/// A task executor that runs jobs on one NIO event loop.
///
/// Each connection's requests run with their connection's event loop as the preferred task executor, so a
/// request that arrives on the loop is decoded, checked, handled and answered there: the only thread hops
/// are the ones to the store and back, not one to the global pool and another back to the loop. Work that
/// would block the loop (password hashing) is sent to a thread pool explicitly.
final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop jobs run on.
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

extension EventLoopTaskExecutor {
    /// One executor per loop of `group`, so tasks on the same loop share an executor (and the runtime can
    /// tell that a task is already on its preferred one).
    static func executors(for group: any EventLoopGroup) -> [ObjectIdentifier: EventLoopTaskExecutor] {
        var executors: [ObjectIdentifier: EventLoopTaskExecutor] = [:]
        for loop in group.makeIterator() {
            executors[ObjectIdentifier(loop)] = EventLoopTaskExecutor(loop)
        }
        return executors
    }
}
