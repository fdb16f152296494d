/// A read-only connection to a ``Store`` for reads cheap enough to run at once on the calling thread: a few
/// indexed lookups, such as `object.get` with its ACL check. The server keeps one per event-loop thread, so a
/// read there never waits for another and never hops to another thread (see protocol/liveness.md).
///
/// A reader must only be used by one thread at a time.
public protocol ImmediateReader: AnyObject, Sendable {
    /// Runs `body` on a read-only snapshot (writes through it fail), on the calling thread.
    func read<T>(_ body: (any Transaction) throws -> T) throws -> T
}
