extension GroupMethods {
    /// A group type (`group.create`): Kii's `Basic`, or one of Tencent IM's types. Any letter case.
    public enum GroupType: String, WireEnum {
        case basic = "Basic"
        case work = "Work"
        case `public` = "Public"
        case meeting = "Meeting"
        case avChatRoom = "AVChatRoom"
        case community = "Community"
    }

    /// A member's role as a param. Any letter case; `owner` is decoded (and refused by the rules: the owner
    /// role changes only by transfer).
    public enum Role: String, WireEnum {
        case owner
        case admin
        case member
    }

    /// How non-members join (Tencent's `V2TIMGroupAddOpt`). Any letter case; the REST API's names and the
    /// SDK's numbers are accepted too.
    public enum AddOption: String, WireEnum {
        case forbid = "FORBID"
        case auth = "AUTH"
        case any = "ANY"

        public static let aliases = [
            "disableapply": "FORBID", "needpermission": "AUTH", "freeaccess": "ANY", "0": "FORBID", "1": "AUTH", "2": "ANY",
        ]
    }

    /// A member's message receive option. Any letter case.
    public enum ReceiveOption: String, WireEnum {
        case receive = "RECEIVE"
        case notReceive = "NOT_RECEIVE"
        case receiveNotNotify = "RECEIVE_NOT_NOTIFY"
    }

    /// Which members `group.memberList` returns (Tencent's `V2TIMGroupMemberFilter`). Any letter case.
    public enum MemberFilter: String, WireEnum {
        case all = "ALL"
        case owner = "OWNER"
        case admin = "ADMIN"
        case common = "COMMON"
    }
}
