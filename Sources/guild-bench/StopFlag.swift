import Synchronization

/// A flag one task sets and others poll, to end loops running on their own threads.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { self.value.load(ordering: .relaxed) }

    func set() {
        self.value.store(true, ordering: .relaxed)
    }
}
