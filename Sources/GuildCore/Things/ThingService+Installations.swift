/// Installations: a user's devices, to which command results are pushed.
extension ThingService {
    /// Registers an installation of the calling user, or finds the one with the same device type and
    /// registration id. An MQTT installation without a registration id gets one.
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
            if let registrationID, let known = try tx.installation(userID: userID, deviceType: deviceType, registrationID: registrationID) {
                return known
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
