/// The per-owner storage quota (guildd's `--storage-quota-bytes`): the bytes of stored bodies that may be
/// charged to one owner (``StorageOwner``). A write that would grow an owner's usage past it is refused with
/// `quotaExceeded` (`details`: `limit`, `usage`) and stores nothing; writes that shrink or keep the usage always
/// pass. Objects and commands are checked; states and group messages are counted but bounded by their own
/// limits (state history, message retention and rate), so a thing's report or a chat never fails on it.
public struct StorageQuota: Sendable, Hashable {
    /// The most bytes per owner; 0: no quota.
    public var bytes: Int64

    /// The default: 256 MiB per owner.
    public static let standard = StorageQuota(bytes: 256 << 20)

    /// A quota of `bytes` per owner (0: none).
    public init(bytes: Int64) {
        self.bytes = max(0, bytes)
    }

    /// Runs `write` in `tx` and refuses it, after the fact, when it grew `owner`'s usage past the quota: the
    /// error rolls the operation back. Usage is read before and after from the engine's own count.
    public func charging<T>(_ owner: StorageOwner?, _ tx: any Transaction, _ write: () throws -> T) throws -> T {
        guard let owner, self.bytes > 0 else { return try write() }
        let before = try tx.storage.storageUsage(owner: owner)
        let result = try write()
        let after = try tx.storage.storageUsage(owner: owner)
        guard after <= before || after <= self.bytes else { throw self.exceeded(owner, usage: before, adding: after - before) }
        return result
    }

    /// Whether `owner` has reached the quota (a trigger firing then sends nothing).
    public func isReached(by owner: StorageOwner, _ tx: any Transaction) throws -> Bool {
        guard self.bytes > 0 else { return false }
        return try tx.storage.storageUsage(owner: owner) >= self.bytes
    }

    /// The error for a write of `adding` bytes by an owner using `usage`.
    func exceeded(_ owner: StorageOwner, usage: Int64, adding: Int64) -> GuildError {
        var error = GuildError(
            .quotaExceeded,
            "storage per owner: \(owner) stores \(usage) bytes and this write adds \(adding), past the limit of \(self.bytes); "
                + "delete some of its data first"
        )
        error.details = ["limit": self.bytes, "usage": usage]
        return error
    }
}
