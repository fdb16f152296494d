import Foundation

/// Waiting for something another process or task does: poll until it holds or a deadline passes. The deadline
/// only catches a hang; it is generous, so a busy machine that takes longer than an idle one still passes
/// (see CONTRIBUTING: tests assert no wall-clock bound).
public enum Eventually {
    /// How long a wait lasts by default: a minute.
    public static let defaultTimeout: Duration = .seconds(60)

    /// Polls `condition` every `interval` until it is true (returns true) or `timeout` has passed (returns
    /// false, having asked one last time).
    @discardableResult
    public static func until(
        timeout: Duration = Self.defaultTimeout,
        every interval: Duration = .milliseconds(20),
        _ condition: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: interval)
        }
        return try await condition()
    }
}
