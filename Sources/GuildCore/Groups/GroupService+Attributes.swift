import GuildJSON

extension GroupService {
    /// How an attribute write changes the map.
    public enum AttributeWrite: Sendable, Hashable {
        /// Replaces every attribute (`initGroupAttributes`).
        case initialize([String: String])
        /// Adds or changes these (`setGroupAttributes`).
        case set([String: String])
        /// Removes these keys; nil removes all (`deleteGroupAttributes`).
        case delete([String]?)
    }

    /// A group's attributes, all or the named keys (members only, where the type has attributes).
    public func attributes(caller: Caller, groupID: String, keys: [String]?) async throws -> GroupAttributes {
        try await self.store.read { tx in
            let context = try self.load(tx, caller, groupID)
            try self.requireAttributes(context)
            var attributes = try tx.imGroups.attributes(groupID: groupID)
            if let keys {
                let wanted = Set(keys)
                attributes.values = attributes.values.filter { wanted.contains($0.key) }
            }
            return attributes
        }
    }

    /// Writes attributes (members only). `version`, when given, must be the current version: a writer that
    /// lost a race gets 10056. At most ``attributeLimiter`` writes a second per group (10049). Members get
    /// `groupAttributeChanged` with the full map.
    public func writeAttributes(caller: Caller, groupID: String, write: AttributeWrite, version: Int64?) async throws -> GroupAttributes {
        switch write {
        case .initialize(let values), .set(let values): try GroupRules.validateAttributes(values)
        case .delete: break
        }
        return try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            try self.requireAttributes(context)
            let current = try tx.imGroups.attributes(groupID: groupID)
            if let version, version != current.version {
                throw GuildError(.attributeConflict, "the attributes changed: version \(current.version), not \(version)", field: "version")
            }
            guard self.attributeLimiter.allow(groupID, now: context.now) else {
                throw GuildError(.attributeRateLimited, "too many attribute writes to \(groupID); retry in a second")
            }
            var values = current.values
            switch write {
            case .initialize(let new): values = new
            case .set(let new): values.merge(new) { _, new in new }
            case .delete(let keys?): for key in keys { values[key] = nil }
            case .delete(nil): values = [:]
            }
            try GroupRules.validateAttributes(values)
            let version = try tx.imGroups.saveAttributes(groupID: groupID, values: values)
            try tx.append(
                context.event(
                    .groupAttributeChanged,
                    changes: ["attributes": .object(values.mapValues { .string($0) }), "version": .int(version)]
                )
            )
            return GroupAttributes(values: values, version: version)
        }
    }

    private func requireAttributes(_ context: Context) throws {
        guard context.policy.attributes else {
            throw GuildError(.unsupported, "\(context.policy.type.rawValue) groups have no attributes")
        }
        guard context.membership != nil || context.standing.contains(.appAdmin) else {
            throw GuildError(.notAMember, "the caller is not a member of \(context.group.id)")
        }
    }
}
