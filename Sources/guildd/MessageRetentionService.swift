import GuildCore
import Logging
import ServiceLifecycle

/// Deletes group messages past their retention (`--message-retention-days`) at start and every minute.
struct MessageRetentionService: Service {
    let groups: GroupService
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown { try await self.loop() }
    }

    private func loop() async throws {
        while !Task.isCancelled {
            do {
                let removed = try await self.groups.pruneMessages()
                if removed > 0 { self.logger.info("pruned group messages", metadata: ["count": "\(removed)"]) }
            } catch {
                self.logger.warning("pruning group messages failed", metadata: ["error": "\(error)"])
            }
            try await Task.sleep(for: .seconds(60))
        }
    }
}
