import Synchronization

/// Time windows that end when the test says, not when real time does: give ``end(after:)`` where a rate gate
/// waits for its window (``GuildCore/LiveRoomGate``), then ``endAll()`` once everything the test offers has
/// reached the gate, so what a window holds does not depend on how fast a busy machine is.
public final class ManualWindows: Sendable {
    private let open = Mutex<[CheckedContinuation<Void, Never>]>([])

    /// No window open yet.
    public init() {}

    /// Returns when the test calls ``endAll()`` (the duration a real window would last is ignored).
    @Sendable public func end(after _: Duration) async {
        await withCheckedContinuation { continuation in self.open.withLock { $0.append(continuation) } }
    }

    /// How many windows wait for their end.
    public var waiting: Int { self.open.withLock { $0.count } }

    /// Ends every window open now.
    public func endAll() {
        let ending = self.open.withLock { open in
            defer { open = [] }
            return open
        }
        for continuation in ending { continuation.resume() }
    }
}
