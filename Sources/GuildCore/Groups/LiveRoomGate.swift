import Synchronization

/// AVChatRoom's rate rule: at most `perWindow` messages per group in each window; over it, lower priorities
/// are discarded first (Lowest, then Low, Normal), and a High is never discarded while a lower one in its
/// window is delivered. A window opens with its group's first message and closes `window` later; then each
/// waiting sender learns whether its message goes out. In memory: a rate is not state a restart must keep.
public final class LiveRoomGate: Sendable {
    private struct Waiting {
        var priority: MessagePriority
        var order: Int
        var continuation: CheckedContinuation<Bool, Never>
    }

    private let perWindow: Int
    private let window: Duration
    private let windowEnd: @Sendable (Duration) async -> Void
    private let open = Mutex<[String: [Waiting]]>([:])

    /// A gate letting `perWindow` messages per group through every `window`. `windowEnd` returns when a
    /// window that opens now has lasted `window`: real time (a sleep) unless a test decides when it ends.
    public init(
        perWindow: Int,
        window: Duration,
        windowEnd: @escaping @Sendable (Duration) async -> Void = LiveRoomGate.realTime
    ) {
        self.perWindow = perWindow
        self.window = window
        self.windowEnd = windowEnd
    }

    /// Ends a window after `window` of real time.
    public static let realTime: @Sendable (Duration) async -> Void = { window in try? await Task.sleep(for: window) }

    /// Waits for the group's current window to close; true when the message is among those delivered.
    public func admit(groupID: String, priority: MessagePriority) async -> Bool {
        await withCheckedContinuation { continuation in
            let opens = self.open.withLock { open in
                var waiting = open[groupID] ?? []
                let opens = open[groupID] == nil
                waiting.append(Waiting(priority: priority, order: waiting.count, continuation: continuation))
                open[groupID] = waiting
                return opens
            }
            if opens {
                Task {
                    await self.windowEnd(self.window)
                    self.close(groupID)
                }
            }
        }
    }

    /// How many messages wait in the group's open window (0 when none is open).
    public func waiting(groupID: String) -> Int {
        self.open.withLock { $0[groupID]?.count ?? 0 }
    }

    private func close(_ groupID: String) {
        let waiting = self.open.withLock { $0.removeValue(forKey: groupID) ?? [] }
        let ranked = waiting.sorted { ($0.priority.rank, $0.order) < ($1.priority.rank, $1.order) }
        for (index, entry) in ranked.enumerated() {
            entry.continuation.resume(returning: index < self.perWindow)
        }
    }
}
