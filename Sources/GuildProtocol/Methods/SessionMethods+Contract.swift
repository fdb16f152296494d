import GuildJSON

extension SessionMethods.Authenticate {
    public static let access: AccessRequirement = .anyone
    public static let changesSession = true
    public static let contract = MethodContract(
        summary:
            "Binds an access token to this connection; later calls act as its user. A thing's token (thing.onboard) binds the thing instead: the result names it (thingID, vendorThingID) and user-only calls answer PERMISSION_DENIED.",
        tags: ["session"],
        params: [
            .init("accessToken", JSONSchema.string, required: true)
        ],
        result: "session",
        JSONSchema.ref("SessionInfo"),
        errors: [ErrorReason.invalidToken],
        example: .init(params: ["accessToken": "gt_DD0RbSbC2h_pLGHoDO0SJxX-30z02i7FmgKFwHRpUco"], result: ContractExamples.session)
    )
}

extension SessionMethods.Logout {
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

extension SessionMethods.WhoAmI {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary: "The bound user or thing (if any), admin rights and the peer credentials of this connection.",
        tags: ["session"],
        result: "session",
        JSONSchema.ref("SessionInfo"),
        example: .init(result: ContractExamples.session)
    )
}

extension SessionMethods {
    /// The sessions area's methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let all: [any RPCMethod.Type] = [
        SessionMethods.Authenticate.self,
        SessionMethods.Logout.self,
        SessionMethods.WhoAmI.self,
    ]
}
