import GuildCore
import GuildJSON
import GuildProtocol

extension GuildError {
    /// The wire form of a domain error: one table from domain codes to JSON-RPC codes and reasons, exhaustive
    /// over ``GuildError/Code`` (no default: a new domain code does not compile until it is mapped here).
    var rpcError: RPCError {
        let (code, reason): (ErrorCode, String) =
            switch self.code {
            case .invalidInput: (.invalidParams, ErrorReason.invalidInputData)
            case .unauthorized: (.unauthorized, ErrorReason.unauthorized)
            case .invalidCredentials: (.invalidCredentials, ErrorReason.invalidCredentials)
            case .invalidToken: (.invalidToken, ErrorReason.invalidToken)
            case .invalidRefreshToken: (.invalidRefreshToken, ErrorReason.invalidRefreshToken)
            case .permissionDenied: (.permissionDenied, ErrorReason.permissionDenied)
            case .userNotFound: (.userNotFound, ErrorReason.userNotFound)
            case .userAlreadyExists: (.userAlreadyExists, ErrorReason.userAlreadyExists)
            case .identityAlreadySet: (.identityAlreadySet, ErrorReason.identityAlreadySet)
            case .groupNotFound: (.groupNotFound, ErrorReason.groupNotFound)
            case .groupAlreadyExists: (.groupAlreadyExists, ErrorReason.groupAlreadyExists)
            case .unsupported: (.imNotAllowed, ErrorReason.unsupportedForType)
            case .cursorExpired: (.cursorExpired, ErrorReason.cursorExpired)
            case .subscriptionNotFound: (.subscriptionNotFound, ErrorReason.subscriptionNotFound)
            case .tooManySubscriptions: (.tooManySubscriptions, ErrorReason.tooManySubscriptions)
            case .imInvalidParameters: (.imInvalidParameters, ErrorReason.imInvalidParameters)
            case .notAllowed: (.imNotAllowed, ErrorReason.notAllowed)
            case .notAMember: (.imNotAllowed, ErrorReason.notAMember)
            case .ownerCannotQuit: (.ownerCannotQuit, ErrorReason.ownerCannotQuit)
            case .groupDismissed: (.groupDismissed, ErrorReason.groupDismissed)
            case .alreadyMember: (.alreadyMember, ErrorReason.alreadyMember)
            case .groupFull: (.groupFull, ErrorReason.groupFull)
            case .invalidGroupID: (.invalidGroupID, ErrorReason.invalidGroupID)
            case .muted: (.muted, ErrorReason.muted)
            case .groupIDInUse: (.groupIDInUse, ErrorReason.groupIDInUse)
            case .alreadyProcessed: (.alreadyProcessed, ErrorReason.alreadyProcessed)
            case .attributeRateLimited: (.attributeRateLimited, ErrorReason.attributeRateLimited)
            case .attributeConflict: (.attributeConflict, ErrorReason.attributeConflict)
            case .storageFull: (.storageFull, ErrorReason.storageFull)
            case .storageUnavailable: (.storageUnavailable, ErrorReason.storageUnavailable)
            case .writeOutcomeUnknown: (.writeOutcomeUnknown, ErrorReason.writeOutcomeUnknown)
            case .objectNotFound: (.objectNotFound, ErrorReason.objectNotFound)
            case .bucketNotFound: (.bucketNotFound, ErrorReason.bucketNotFound)
            case .objectAlreadyExists: (.objectAlreadyExists, ErrorReason.objectAlreadyExists)
            case .objectVersionIsStale: (.objectVersionIsStale, ErrorReason.objectVersionIsStale)
            case .objectTooLarge: (.objectTooLarge, ErrorReason.objectTooLarge)
            case .aclAlreadyExists: (.aclAlreadyExists, ErrorReason.aclAlreadyExists)
            case .aclNotFound: (.aclNotFound, ErrorReason.aclNotFound)
            case .aclEntryFixed: (.aclEntryFixed, ErrorReason.aclEntryFixed)
            case .queryNotSupported: (.queryNotSupported, ErrorReason.queryNotSupported)
            case .sendRateLimited: (.sendRateLimited, ErrorReason.sendRateLimited)
            case .messageNotFound: (.messageNotFound, ErrorReason.messageNotFound)
            case .recallTimeLimit: (.recallTimeLimit, ErrorReason.recallTimeLimit)
            case .messageTooLong: (.messageTooLong, ErrorReason.messageTooLong)
            case .thingNotFound: (.thingNotFound, ErrorReason.thingNotFound)
            case .thingOwnershipAlreadyExists: (.thingOwnershipAlreadyExists, ErrorReason.thingOwnershipAlreadyExists)
            case .thingOwnershipNotFound: (.thingOwnershipNotFound, ErrorReason.thingOwnershipNotFound)
            case .commandNotFound: (.commandNotFound, ErrorReason.commandNotFound)
            case .commandAlreadyDone: (.commandAlreadyDone, ErrorReason.commandAlreadyDone)
            case .stateNotFound: (.stateNotFound, ErrorReason.stateNotFound)
            case .stateHistoryNotAvailable: (.stateHistoryNotAvailable, ErrorReason.stateHistoryNotAvailable)
            case .stateTooLarge: (.stateTooLarge, ErrorReason.stateTooLarge)
            case .triggerNotFound: (.triggerNotFound, ErrorReason.triggerNotFound)
            case .installationNotFound: (.installationNotFound, ErrorReason.installationNotFound)
            case .quotaExceeded: (.quotaExceeded, ErrorReason.quotaExceeded)
            }
        return RPCError(
            code: code,
            message: self.message,
            reason: reason,
            field: self.field,
            extra: self.details.mapValues { .int($0) }
        )
    }
}
