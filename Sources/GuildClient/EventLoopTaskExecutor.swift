import NIOCore

/// Runs jobs on a connection's event loop: the task executor preferred while a call from a caller pinned to
/// that event loop (see ``GuildClient/executor``) waits for its reply.
///
/// The reply is read on the event loop, which resumes the waiting call. Without the preference the call would
/// resume on the cooperative pool and then hop back to the event loop (two thread wake-ups per round trip);
/// with it, the call resumes on the thread that read the reply, with no hop at all.
final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Enqueued from the event loop itself (the usual case: a reply resumes its call), this only queues.
        self.eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
