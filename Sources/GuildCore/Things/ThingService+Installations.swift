import Foundation

/// Installations: a user's devices, to which command results are pushed.
extension ThingService {
    /// The most installations one user may have (issue 39: a local user must not fill the store with them). A
    /// register past it is refused with `quotaExceeded`; finding one the user already has still works.
    public static let maximumInstallationsPerUser = 100
    /// The largest page of `installation.list`, and its default.
    public static let maximumInstallationPage = 100

    /// Registers an installation of the calling user, or finds the one with the same device type and
    /// registration id. An MQTT installation without a registration id gets one. A user who has
    /// ``maximumInstallationsPerUser`` installations gets `quotaExceeded` for a new one.
    public func registerInstallation(
        caller: Caller,
        deviceType: String,
        registrationID: String?,
        development: Bool
    ) async throws
        -> Installation
    {
        let userID = try caller.requireUserID()
        try ThingRules.checkDeviceType(deviceType)
        if let registrationID, registrationID.isEmpty || registrationID.utf8.count > 512 {
            throw GuildError.invalidInput("installationRegistrationID is 1-512 bytes", field: "installationRegistrationID")
        }
        let now = self.now()
        return try await self.store.write { tx in
            // Counted first: on PostgreSQL this also makes another host's register of the same user wait.
            let count = try tx.things.installationCount(userID: userID)
            if let registrationID, let known = try tx.things.installation(userID: userID, deviceType: deviceType, registrationID: registrationID) {
                return known
            }
            guard count < Self.maximumInstallationsPerUser else {
                var error = GuildError(
                    .quotaExceeded,
                    "a user may register at most \(Self.maximumInstallationsPerUser) installations; delete one first"
                )
                error.details = ["limit": Int64(Self.maximumInstallationsPerUser), "usage": Int64(count)]
                throw error
            }
            let installation = Installation(
                installationID: Self.newID(prefix: "in."),
                userID: userID,
                deviceType: deviceType,
                registrationID: registrationID ?? (deviceType == "MQTT" ? Self.newID(prefix: "mqtt.") : nil),
                development: development,
                created: now
            )
            try tx.things.insertInstallation(installation)
            return installation
        }
    }

    /// A page of the calling user's installations, oldest first: at most `limit` (1 to
    /// ``maximumInstallationPage``, that when absent), after the one `paginationKey` names. The next page's key
    /// is nil on the last page.
    public func installations(
        caller: Caller,
        limit: Int? = nil,
        paginationKey: String? = nil
    ) async throws -> (installations: [Installation], nextPaginationKey: String?) {
        let userID = try caller.requireUserID()
        let limit = try Self.pageLimit(limit, maximum: Self.maximumInstallationPage)
        // Sealed for the caller as every paging key is (``PageKeys``), though it names only their own installation.
        let binding = PageBinding("installation.list", caller: caller, [])
        let after = try paginationKey.map { key throws(GuildError) in
            try Self.installationPosition(try self.pageKeys.open(key, for: binding))
        }
        let page = try await self.store.read { try $0.things.installations(userID: userID, after: after, limit: limit + 1) }
        let next = page.count > limit ? self.pageKeys.seal(Self.installationKey(page[limit - 1]), for: binding) : nil
        return (Array(page.prefix(limit)), next)
    }

    /// The position after `installation`, to be sealed: `<created>:<installationID>` (the creation time keeps
    /// the place when that installation is deleted between pages).
    static func installationKey(_ installation: Installation) -> [UInt8] {
        Array("\(installation.created):\(installation.installationID)".utf8)
    }

    /// The position an ``installationKey(_:)`` holds.
    static func installationPosition(_ key: [UInt8]) throws(GuildError) -> (created: Int64, installationID: String) {
        let invalid = GuildError.invalidInput("paginationKey is not one this daemon returned", field: "paginationKey")
        guard let text = String(bytes: key, encoding: .utf8),
            let colon = text.firstIndex(of: ":"), let created = Int64(text[..<colon]), created >= 0
        else { throw invalid }
        let installationID = String(text[text.index(after: colon)...])
        guard !installationID.isEmpty, !installationID.utf8.contains(0) else { throw invalid }
        return (created, installationID)
    }

    /// Deletes one of the caller's installations (an admin's: anyone's).
    public func deleteInstallation(caller: Caller, installationID: String) async throws {
        let userID = caller.isAdmin ? nil : try caller.requireUserID()
        try await self.store.write { tx in
            guard let installation = try tx.things.installation(id: installationID), userID == nil || installation.userID == userID else {
                throw GuildError(.installationNotFound, "no installation \(installationID) of the caller", field: "installationID")
            }
            _ = try tx.things.deleteInstallation(id: installationID)
        }
    }
}
