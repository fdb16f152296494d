import GuildCore
import GuildProtocol

extension GroupInfo {
    /// A group as the wire shows it in lists and replies.
    init(_ group: Group) {
        self.init(
            groupID: group.id,
            name: group.name,
            type: group.type.rawValue,
            owner: group.ownerID,
            memberCount: group.memberCount,
            createdAt: group.createdAt,
            modifiedAt: group.modifiedAt
        )
    }
}
