import GuildJSON

extension JSONValue {
    /// This object with `changes` set (replacing members of the same name); other values are returned unchanged.
    /// For examples that differ from a shared one (``ContractExamples``) in a few members.
    public func merging(_ changes: [String: JSONValue]) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members.merge(changes) { _, new in new }
        return .object(members)
    }
}
