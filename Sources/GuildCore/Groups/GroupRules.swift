/// Validation of group inputs (Kii: domain-rules.md §1.2).
public enum GroupRules {
    /// Group ids: at most 30 of `[a-z0-9_.-]`, not empty.
    public static func validateGroupID(_ id: String) throws(GuildError) {
        guard (1...30).contains(id.unicodeScalars.count),
            id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0) })
        else {
            throw .invalidInput("groupID must be 1 to 30 of a-z, 0-9, '_', '.' and '-'", field: "groupID")
        }
    }

    /// Group names: 1 to 190 characters.
    public static func validateName(_ name: String) throws(GuildError) {
        guard (1...190).contains(name.count) else {
            throw .invalidInput("name must be 1 to 190 characters", field: "name")
        }
    }

    /// The caller's standing in a group, as the policy table reads it.
    public static func standing(of caller: Caller, in membership: Membership?) -> Actors {
        var actors: Actors = caller.isAdmin ? .appAdmin : []
        switch membership?.role {
        case .owner: actors.insert(.owner)
        case .admin: actors.insert(.admin)
        case .member: actors.insert(.member)
        case nil: break
        }
        return actors
    }
}
