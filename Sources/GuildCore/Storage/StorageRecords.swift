/// Storage usage on a ``Transaction``: bytes of stored bodies per owner and area, kept by the engine in the
/// transaction that stores or deletes them (cascades included), so a read here is exact.
public protocol StorageRecords {
    /// The bytes charged to `owner`, over every area.
    func storageUsage(owner: StorageOwner) throws -> Int64
    /// The bytes stored per area, over every owner (areas with none are absent).
    func storageUsageByArea() throws -> [StorageArea: Int64]
    /// The `limit` owners with the most bytes, most first, with their bytes.
    func largestStorageOwners(limit: Int) throws -> [(owner: StorageOwner, bytes: Int64)]
    /// Owners and areas whose kept usage differs from a recount of what is stored (none when consistent).
    func storageInvariantViolations() throws -> [String]
}
