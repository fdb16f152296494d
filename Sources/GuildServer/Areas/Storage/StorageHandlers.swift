import CoreMetrics
import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// `system.storage` (admins).
    mutating func registerStorageMethods(store: any Store, quota: StorageQuota) {
        self.register(SystemMethods.Storage.self) { _, _ in
            let (areas, largest) = try await store.read { tx in
                (try tx.storage.storageUsageByArea(), try tx.storage.largestStorageOwners(limit: 10))
            }
            return .init(
                quotaBytes: quota.bytes,
                areas: Dictionary(uniqueKeysWithValues: StorageArea.allCases.map { ($0.rawValue, areas[$0] ?? 0) }),
                largest: largest.map { .init(owner: $0.owner.description, bytes: $0.bytes) }
            )
        }
    }
}

/// The `guild_storage_bytes{area}` gauges of `system.metrics`, read from the store at each scrape.
enum StorageGauges {
    static func update(_ store: any Store) async throws {
        let usage = try await store.read { try $0.storage.storageUsageByArea() }
        for area in StorageArea.allCases {
            Gauge(label: "guild_storage_bytes", dimensions: [("area", area.rawValue)]).record(usage[area] ?? 0)
        }
    }
}
