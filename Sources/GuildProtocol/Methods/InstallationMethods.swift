import GuildJSON

/// `installation.*`: a user's devices, to which command results are pushed (protocol/things.md).
public enum InstallationMethods: Sendable {
    /// An installation as the methods show it.
    public struct InstallationInfo: Codable, Hashable, Sendable {
        public var installationID: String
        public var deviceType: String
        public var installationRegistrationID: String?
        public var development: Bool
        public var created: Int64
        public init(installationID: String, deviceType: String, installationRegistrationID: String?, development: Bool, created: Int64) {
            self.installationID = installationID
            self.deviceType = deviceType
            self.installationRegistrationID = installationRegistrationID
            self.development = development
            self.created = created
        }
    }

    /// `installation.register`: creates an installation of the caller (or finds the one with the same device
    /// type and registration id) and binds the calling connection to it.
    public enum Register: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            /// ANDROID, IOS, JPUSH or MQTT.
            public var deviceType: String
            public var installationRegistrationID: String?
            public var development: Bool?
            public init(deviceType: String, installationRegistrationID: String? = nil, development: Bool? = nil) {
                self.deviceType = deviceType
                self.installationRegistrationID = installationRegistrationID
                self.development = development
            }
        }
        public typealias Result = InstallationInfo
        public static let name = "installation.register"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Registers an installation (a device) of the calling user, or finds the one with the same deviceType and registration id, and binds the calling connection to it: command results are pushed to installations (protocol/things.md). Register before events.subscribe. A user has at most 100 installations: a new one past that is QUOTA_EXCEEDED (data.limit, data.usage); finding an existing one still works.",
            tags: ["installation", "thing"],
            params: [
                .init("deviceType", JSONSchema.oneOf(["ANDROID", "IOS", "JPUSH", "MQTT"]), required: true),
                .init("installationRegistrationID", JSONSchema.string, "The push registration id (1-512 bytes); generated for MQTT"),
                .init("development", JSONSchema.boolean, "A development (sandbox) installation"),
            ],
            result: "installation",
            installationSchema,
            errors: [ErrorReason.invalidInputData, ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.quotaExceeded],
            writes: true,
            example: .init(params: ["deviceType": "ANDROID", "installationRegistrationID": "fcm-token-123"], result: ContractExamples.installation)
        )
    }

    /// `installation.list`: a page of the caller's installations, oldest first.
    public enum List: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            /// 1-100; 100 when absent (a user has at most 100 installations, so one page holds them all).
            public var limit: Int?
            /// The previous page's `nextPaginationKey`.
            public var paginationKey: String?
            public init(limit: Int? = nil, paginationKey: String? = nil) {
                self.limit = limit
                self.paginationKey = paginationKey
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var installations: [InstallationInfo]
            /// Continues with the next page; absent on the last page.
            public var nextPaginationKey: String?
            public init(installations: [InstallationInfo], nextPaginationKey: String? = nil) {
                self.installations = installations
                self.nextPaginationKey = nextPaginationKey
            }
        }
        public static let name = "installation.list"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "The calling user's installations, oldest first, at most limit (default and maximum 100, the most a user may have) per page; nextPaginationKey continues (absent on the last page).",
            tags: ["installation", "thing"],
            params: [
                .init("limit", JSONSchema.integer, "1-100"),
                .init("paginationKey", JSONSchema.string, "From the previous page, by the same caller; valid until the daemon restarts"),
            ],
            result: "installations",
            JSONSchema.object(
                required: ["installations"],
                ["installations": JSONSchema.array(of: installationSchema), "nextPaginationKey": JSONSchema.string]
            ),
            errors: [ErrorReason.invalidInputData, ErrorReason.unauthorized, ErrorReason.permissionDenied],
            example: .init(params: ["limit": 10], result: ["installations": [ContractExamples.installation]])
        )
    }

    /// `installation.delete`: removes one of the caller's installations.
    public enum Delete: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var installationID: String
            public init(installationID: String) { self.installationID = installationID }
        }
        public typealias Result = Bool
        public static let name = "installation.delete"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "Deletes one of the caller's installations (an admin: anyone's); results are no longer pushed to it.",
            tags: ["installation", "thing"],
            params: [.init("installationID", JSONSchema.string, required: true)],
            result: "deleted",
            JSONSchema.boolean,
            errors: [ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.installationNotFound],
            writes: true,
            example: .init(params: ["installationID": "in.0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f"], result: true)
        )
    }
}

/// The schema of an installation.
let installationSchema = JSONSchema.object(
    required: ["installationID", "deviceType", "development", "created"],
    [
        "installationID": JSONSchema.string, "deviceType": JSONSchema.string, "installationRegistrationID": JSONSchema.string,
        "development": JSONSchema.boolean, "created": JSONSchema.integer,
    ]
)

extension ContractExamples {
    static let installation: JSONValue = [
        "installationID": "in.0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f", "deviceType": "ANDROID", "installationRegistrationID": "fcm-token-123",
        "development": false, "created": 1_795_348_702_624,
    ]
}
