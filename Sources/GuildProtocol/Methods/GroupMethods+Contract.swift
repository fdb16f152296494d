import GuildJSON

extension GroupMethods.AddMembers {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Adds members (Basic: owner or admin). Per user: SUCC (also for an existing member, as Kii), FAIL with reason USER_NOT_FOUND. Members get memberInvited.",
        tags: ["group"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("userIDs", JSONSchema.array(of: JSONSchema.string), required: true),
        ],
        result: "results",
        JSONSchema.object(required: ["results"], ["results": JSONSchema.array(of: JSONSchema.ref("MemberResult"))]),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.permissionDenied],
        writes: true,
        example: .init(
            params: ["groupID": "sales-div", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]],
            result: ["results": [["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "result": "SUCC"]]]
        )
    )
}

extension GroupMethods.ChangeOwner {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Makes userID the owner (owner or admin; an ownerless group: admin only). Basic: a non-member becomes a member; the old owner stays a member. Members get groupInfoChanged with changes.owner.",
        tags: ["group"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("userID", JSONSchema.string, required: true),
        ],
        result: "group",
        JSONSchema.ref("GroupInfo"),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.permissionDenied, ErrorReason.userNotFound],
        writes: true,
        example: .init(
            params: ["groupID": "sales-div", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"],
            result: ContractExamples.group.merging(["owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"])
        )
    )
}

extension GroupMethods.Create {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Creates a group; the caller becomes owner and member. Unknown initial members come back in notFoundUsers without failing the call. An admin may name another owner, or none. The type decides the rules (group.types).",
        tags: ["group"],
        params: [
            .init("name", JSONSchema.string, required: true, "Basic: 1-190 characters; IM types: 1-30 bytes (Tencent IM)"),
            .init(
                "groupID",
                JSONSchema.string,
                "Basic: at most 30 of [a-z0-9_.-]; IM types: 1-48 bytes of printable ASCII, not starting @TGS# (Community: must start @TGS#_); generated when absent"
            ),
            .init("type", JSONSchema.oneOf(GroupMethods.GroupType.self), "Default Basic (Kii rules)"),
            .init(
                "members",
                JSONSchema.array(of: [
                    "oneOf": [
                        JSONSchema.string,
                        JSONSchema.object(required: ["userID"], ["userID": JSONSchema.string, "role": JSONSchema.oneOf(["admin", "member"])]),
                    ]
                ]),
                "Initial members: userIDs, or {userID, role}"
            ),
            .init("owner", JSONSchema.string, "Admins only: the owner's userID"),
            .init("introduction", JSONSchema.string, "At most 400 bytes"),
            .init("notification", JSONSchema.string, "At most 400 bytes"),
            .init("faceURL", JSONSchema.string, "At most 500 bytes"),
            .init("addOpt", JSONSchema.oneOf(GroupMethods.AddOption.self), "How non-members join (default per type)"),
            .init("custom", JSONSchema.stringMap, "Custom fields: keys 1-16 bytes, values at most 512 bytes"),
        ],
        result: "created",
        JSONSchema.object(
            required: ["group", "notFoundUsers"],
            ["group": JSONSchema.ref("GroupInfo"), "notFoundUsers": JSONSchema.array(of: JSONSchema.string)]
        ),
        errors: [
            ErrorReason.unauthorized, ErrorReason.invalidInputData, ErrorReason.groupAlreadyExists, ErrorReason.userNotFound,
            ErrorReason.permissionDenied, ErrorReason.invalidParameters, ErrorReason.invalidGroupID, ErrorReason.groupIDInUse,
            ErrorReason.groupFull, ErrorReason.unsupportedForType,
        ],
        writes: true,
        example: .init(
            params: [
                "name": "Sales Div.",
                "groupID": "sales-div",
                "members": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f01", "nope"],
            ],
            result: ["group": ContractExamples.group, "notFoundUsers": ["nope"]]
        )
    )
}

extension GroupMethods.Delete {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "Deletes a group (owner or admin). Members get groupDismissed.",
        tags: ["group"],
        params: [
            .init("groupID", JSONSchema.string, required: true)
        ],
        result: "deleted",
        JSONSchema.boolean,
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.permissionDenied],
        writes: true,
        example: .init(params: ["groupID": "sales-div"], result: true)
    )
}

extension GroupMethods.Get {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "A group. Any caller with a session may read any group (Kii).",
        tags: ["group"],
        params: [
            .init("groupID", JSONSchema.string, required: true)
        ],
        result: "group",
        JSONSchema.ref("GroupInfo"),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound],
        example: .init(params: ["groupID": "sales-div"], result: ContractExamples.group)
    )
}

extension GroupMethods.Members {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "A page of members in join order (at most 200; default 100). Pass nextCursor back until it is 0: no duplicates or omissions while members change.",
        tags: ["group"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("cursor", JSONSchema.integer),
            .init("limit", JSONSchema.integer),
        ],
        result: "page",
        JSONSchema.object(
            required: ["members", "nextCursor"],
            [
                "members": JSONSchema.array(of: JSONSchema.ref("GroupMember")),
                "nextCursor": JSONSchema.integer,
            ]
        ),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember],
        example: .init(
            params: ["groupID": "sales-div", "limit": 2],
            result: [
                "members": [["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "role": "owner", "joinedAt": 1_795_348_702_624]],
                "nextCursor": 0,
            ]
        )
    )
}

extension GroupMethods.Owner {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "The owner's userID, or null for an ownerless group.",
        tags: ["group"],
        params: [
            .init("groupID", JSONSchema.string, required: true)
        ],
        result: "owner",
        JSONSchema.object(required: ["owner"], ["owner": JSONSchema.nullableString]),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound],
        example: .init(params: ["groupID": "sales-div"], result: ["owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"])
    )
}

extension GroupMethods.RemoveMembers {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary:
            "Removes members: owner or admin removes anyone but the owner (memberKicked); a member may remove themself (memberLeave, and quitFromGroup to them). Per user: SUCC, or FAIL with NOT_A_MEMBER, PERMISSION_DENIED or OWNER_CANNOT_LEAVE.",
        tags: ["group"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("userIDs", JSONSchema.array(of: JSONSchema.string), required: true),
        ],
        result: "results",
        JSONSchema.object(required: ["results"], ["results": JSONSchema.array(of: JSONSchema.ref("MemberResult"))]),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound],
        writes: true,
        example: .init(
            params: ["groupID": "sales-div", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]],
            result: ["results": [["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "result": "SUCC"]]]
        )
    )
}

extension GroupMethods.Rename {
    public static let access: AccessRequirement = .session
    public static let contract = MethodContract(
        summary: "Renames a group (owner or admin). Members get groupInfoChanged.",
        tags: ["group"],
        params: [
            .init("groupID", JSONSchema.string, required: true),
            .init("name", JSONSchema.string, required: true),
        ],
        result: "group",
        JSONSchema.ref("GroupInfo"),
        errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.permissionDenied, ErrorReason.invalidInputData],
        writes: true,
        example: .init(params: ["groupID": "sales-div", "name": "Sales"], result: ContractExamples.group.merging(["name": "Sales"]))
    )
}

extension GroupMethods {
    /// The groups area's methods (Kii groups and what every type shares), in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let kiiMethods: [any RPCMethod.Type] = [
        GroupMethods.AddMembers.self,
        GroupMethods.ChangeOwner.self,
        GroupMethods.Create.self,
        GroupMethods.Delete.self,
        GroupMethods.Get.self,
        GroupMethods.Members.self,
        GroupMethods.Owner.self,
        GroupMethods.RemoveMembers.self,
        GroupMethods.Rename.self,
    ]
}
