/// Installations: a user's devices, to which command results are pushed.
extension ThingService {
    /// The most installations one user may have (issue 39: a local user must not fill the store with them). A
    /// register past it is refused with `quotaExceeded`; finding one the user already has still works.
    public static let maximumInstallationsPerUser = 100

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
            let count = try tx.installationCount(userID: userID)
            if let registrationID, let known = try tx.installation(userID: userID, deviceType: deviceType, registrationID: registrationID) {
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
            try tx.insertInstallation(installation)
            return installation
        }
    }

    /// The calling user's installations.
    public func installations(caller: Caller) async throws -> [Installation] {
        let userID = try caller.requireUserID()
        return try await self.store.read { try $0.installations(userID: userID) }
    }

    /// Deletes one of the caller's installations (an admin's: anyone's).
    public func deleteInstallation(caller: Caller, installationID: String) async throws {
        let userID = caller.isAdmin ? nil : try caller.requireUserID()
        try await self.store.write { tx in
            guard let installation = try tx.installation(id: installationID), userID == nil || installation.userID == userID else {
                throw GuildError(.installationNotFound, "no installation \(installationID) of the caller", field: "installationID")
            }
            _ = try tx.deleteInstallation(id: installationID)
        }
    }
}
