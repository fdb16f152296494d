import Glibc
import Synchronization

/// A few descriptors (`/dev/null`) held back for the process's runtime, given up while the process is out of
/// descriptors.
///
/// libdispatch, which runs Swift concurrency on Linux, checks its worker threads once a second while its queues
/// have work by opening `/proc/<tid>/stat`, and crashes the process when that `open` fails ("workq: registered
/// worker exited prematurely", a SIGILL), as it does with EMFILE. (Seen in the suite under load; a small program
/// that fills its descriptor table and keeps the pool busy dies so with no descriptor free and lives with one.)
/// So when accepting runs out of descriptors, ``AcceptPauseHandler`` gives these up as well as pausing, which
/// leaves free slots for the runtime while accepting stands still, and takes them back before accepting again.
final class DescriptorReserve: Sendable {
    /// The process's reserve: one for the runtime's check, the rest for anything else it opens lazily.
    static let shared = DescriptorReserve(count: 4)

    private let count: Int
    private let descriptors = Mutex<[Int32]>([])

    init(count: Int) {
        self.count = count
        _ = self.restore()
    }

    /// Gives the reserve up (its slots are free afterwards).
    func release() {
        self.descriptors.withLock { descriptors in
            for descriptor in descriptors { close(descriptor) }
            descriptors.removeAll()
        }
    }

    /// Takes the whole reserve back; false (holding none) when not enough descriptors are free for it yet.
    func restore() -> Bool {
        self.descriptors.withLock { descriptors in
            while descriptors.count < self.count {
                let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    // All or nothing: a partial reserve would only take slots the process needs meanwhile.
                    for held in descriptors { close(held) }
                    descriptors.removeAll()
                    return false
                }
                descriptors.append(descriptor)
            }
            return true
        }
    }

    /// How many descriptors the reserve holds now.
    var held: Int { self.descriptors.withLock { $0.count } }
}
