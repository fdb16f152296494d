import GuildJSON

/// `session.*`: binding an access token to the connection, and asking who the connection is.
public enum SessionMethods: Sendable {
    /// `session.authenticate`: binds an access token to this connection; later calls act as its user.
    public enum Authenticate: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var accessToken: String
            public init(accessToken: String) {
                self.accessToken = accessToken
            }
        }
        public typealias Result = SessionInfo
        public static let name = "session.authenticate"

        public static let access: AccessRequirement = .anyone
        public static let changesSession = true
        public static let contract = MethodContract(
            summary:
                "Binds an access token to this connection; later calls act as its user. A thing's token (thing.onboard) binds the thing instead: the result names it (thingID, vendorThingID) and user-only calls answer PERMISSION_DENIED; a disabled thing's token answers THING_DISABLED.",
            tags: ["session"],
            params: [
                .init("accessToken", JSONSchema.string, required: true)
            ],
            result: "session",
            JSONSchema.ref("SessionInfo"),
            errors: [ErrorReason.invalidToken, ErrorReason.thingDisabled],
            example: .init(params: ["accessToken": "gt_DD0RbSbC2h_pLGHoDO0SJxX-30z02i7FmgKFwHRpUco"], result: ContractExamples.session)
        )
    }

    /// `session.whoami`: the bound user (if any), admin rights and the peer credentials.
    public enum WhoAmI: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = SessionInfo
        public static let name = "session.whoami"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "The bound user or thing (if any), admin rights and the peer credentials of this connection.",
            tags: ["session"],
            result: "session",
            JSONSchema.ref("SessionInfo"),
            example: .init(result: ContractExamples.session)
        )
    }

    /// `session.logout`: revokes the bound access token (and its refresh token) and unbinds the connection.
    public enum Logout: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = Bool
        public static let name = "session.logout"

        public static let access: AccessRequirement = .session
        public static let changesSession = true
        public static let contract = MethodContract(
            summary: "Revokes the bound access token (and its refresh token) and unbinds the connection.",
            tags: ["session"],
            result: "loggedOut",
            JSONSchema.boolean,
            errors: [ErrorReason.unauthorized, ErrorReason.invalidToken],
            writes: true,
            example: .init(result: true)
        )
    }
}

extension SessionMethods {
    /// The sessions area's methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let all: [any RPCMethod.Type] = [
        SessionMethods.Authenticate.self,
        SessionMethods.Logout.self,
        SessionMethods.WhoAmI.self,
    ]
}
