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
    }

    /// `installation.delete`: removes one of the caller's installations.
    public enum Delete: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var installationID: String
            public init(installationID: String) { self.installationID = installationID }
        }
        public typealias Result = Bool
        public static let name = "installation.delete"
    }
}
