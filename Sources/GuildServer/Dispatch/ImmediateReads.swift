import GuildCore
import Logging
import NIOPosix
import Synchronization

/// The store's immediate readers, one per thread that asks (the event loops), and their answers until the next
/// commit.
///
/// A read on an event loop runs on its thread's own connection, never waiting for another thread's read (see
/// `ImmediateReader`). What it answered is kept, per thread, keyed by method, params and caller, until the store
/// commits anything at all: a read repeated while nothing was written answers from there. Each commit moves a
/// generation on (an after-commit hook, run before any writer hears of its commit); an answer is kept only if
/// the generation did not move while it was read, and used only while it has not moved since.
final class ImmediateReads: Sendable {
    /// What an answer depends on besides the database: the method, its params' exact text and who called.
    struct Key: Hashable {
        var method: String
        var params: [UInt8]
        var userID: String?
        var isAdmin: Bool

        func hash(into hasher: inout Hasher) {
            hasher.combine(self.method)
            self.params.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(self.userID)
            hasher.combine(self.isAdmin)
        }
    }

    /// One thread's reader and kept answers. Only that thread touches it (it lives in a thread-specific
    /// variable), hence unchecked.
    private final class Slot: @unchecked Sendable {
        let reader: (any ImmediateReader)?
        var answers: [Key: [UInt8]] = [:]
        var bytes = 0
        var generation: UInt64 = 0

        init(_ reader: (any ImmediateReader)?) { self.reader = reader }

        func clear() {
            self.answers.removeAll(keepingCapacity: true)
            self.bytes = 0
        }
    }

    /// The most bytes of answers (and of their params) a thread keeps; past it, it starts afresh.
    static let maximumBytes = 4 * 1024 * 1024
    /// The largest answer kept, in bytes.
    static let maximumAnswerBytes = 16 * 1024

    private let store: any Store
    private let logger: Logger
    private let slots = ThreadSpecificVariable<Slot>()
    private let commits = Atomic<UInt64>(0)

    init(store: any Store, logger: Logger) {
        self.store = store
        self.logger = logger
        store.afterCommit { [weak self] _ in self?.commits.add(1, ordering: .releasing) }
    }

    /// The calling thread's slot, its reader opened on first use.
    private func slot() -> Slot {
        if let slot = self.slots.currentValue { return slot }
        let reader: (any ImmediateReader)?
        do {
            reader = try self.store.makeImmediateReader()
        } catch {
            self.logger.warning("no immediate reader on this thread; its reads run as tasks", metadata: ["error": "\(error)"])
            reader = nil
        }
        let slot = Slot(reader)
        self.slots.currentValue = slot
        return slot
    }

    /// Answers `key` on the calling thread: as kept since the last commit, or by `read` on the thread's reader
    /// (then kept). Nil when the store cannot read at once (the call then runs as a task).
    func answer(_ key: Key, _ read: (any ImmediateReader) throws -> [UInt8]) rethrows -> [UInt8]? {
        let slot = self.slot()
        guard let reader = slot.reader else { return nil }
        let generation = self.commits.load(ordering: .acquiring)
        if slot.generation != generation {
            slot.clear()
            slot.generation = generation
        } else if let kept = slot.answers[key] {
            return kept
        }
        let answer = try read(reader)
        // Kept only if no commit came while it was read: it may have been read from the snapshot before it.
        if answer.count <= Self.maximumAnswerBytes, self.commits.load(ordering: .acquiring) == generation {
            let size = answer.count + key.params.count
            if slot.bytes + size > Self.maximumBytes { slot.clear() }
            slot.answers[key] = answer
            slot.bytes += size
        }
        return answer
    }
}
