import GuildCore
import Logging
import NIOPosix

/// The store's immediate readers, one per thread that asks (the event loops): a read on an event loop runs on
/// its thread's own connection, never waiting for another thread's read (see `ImmediateReader`).
final class ImmediateReads: Sendable {
    /// One thread's reader, or the note that the store has none for it.
    private final class Slot: Sendable {
        let reader: (any ImmediateReader)?
        init(_ reader: (any ImmediateReader)?) { self.reader = reader }
    }

    private let store: any Store
    private let logger: Logger
    private let slots = ThreadSpecificVariable<Slot>()

    init(store: any Store, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The calling thread's reader, opened on first use; nil when the store cannot read at once (the call
    /// then runs as a task).
    func reader() -> (any ImmediateReader)? {
        if let slot = self.slots.currentValue { return slot.reader }
        let reader: (any ImmediateReader)?
        do {
            reader = try self.store.makeImmediateReader()
        } catch {
            self.logger.warning("no immediate reader on this thread; its reads run as tasks", metadata: ["error": "\(error)"])
            reader = nil
        }
        self.slots.currentValue = Slot(reader)
        return reader
    }
}
