import GuildJSON

extension ObjectClause {
    /// Whether `object` (its fields and Guild's reserved ones) matches. A comparison with a field the object
    /// lacks is unknown, and `not` keeps it unknown (SQL's three-valued logic), so `not eq` never matches an
    /// object without the field, as in Kii; a field of another type than the clause compares with does not
    /// match.
    public func matches(_ object: [String: JSONValue]) -> Bool {
        self.truth(object) == .yes
    }

    enum Truth {
        case yes, no, unknown

        var negated: Truth {
            switch self {
            case .yes: .no
            case .no: .yes
            case .unknown: .unknown
            }
        }
    }

    func truth(_ object: [String: JSONValue]) -> Truth {
        switch self {
        case .all:
            return .yes
        case .eq(let path, let expected):
            return Self.compare(path, object) { $0.compare(expected) == 0 }
        case .in(let path, let values):
            return Self.compare(path, object) { value in values.contains { value.compare($0) == 0 } }
        case .prefix(let path, let prefix):
            return Self.compare(path, object) { value in
                guard case .string(let text) = value else { return false }
                return text.utf8.starts(with: prefix.utf8)
            }
        case .range(let path, let lower, let upper):
            return Self.compare(path, object) { value in
                if let lower {
                    guard let order = value.compare(lower.value), order > 0 || (order == 0 && lower.included) else { return false }
                }
                if let upper {
                    guard let order = value.compare(upper.value), order < 0 || (order == 0 && upper.included) else { return false }
                }
                return true
            }
        case .hasField(let path, let type):
            switch (path.value(in: object), type) {
            case (.string?, .string), (.int?, .integer), (.double?, .decimal), (.bool?, .boolean): return .yes
            default: return .no
            }
        case .not(let clause):
            return clause.truth(object).negated
        case .and(let clauses):
            var result = Truth.yes
            for clause in clauses {
                switch clause.truth(object) {
                case .no: return .no
                case .unknown: result = .unknown
                case .yes: break
                }
            }
            return result
        case .or(let clauses):
            var result = Truth.no
            for clause in clauses {
                switch clause.truth(object) {
                case .yes: return .yes
                case .unknown: result = .unknown
                case .no: break
                }
            }
            return result
        }
    }

    private static func compare(_ path: FieldPath, _ object: [String: JSONValue], _ test: (FieldValue) -> Bool) -> Truth {
        guard let value = path.value(in: object), value != .null else { return .unknown }
        guard let scalar = FieldValue(value) else { return .no }
        return test(scalar) ? .yes : .no
    }

    /// The values of `path` that an object must hold at that path to match, when the clause says so (an `eq`
    /// or `in`, alone or in an `and`): the store then reads only objects with one of them, from its field index
    /// (which does not keep `_id`).
    public var requiredValues: (path: FieldPath, values: [FieldValue])? {
        switch self {
        case .eq(let path, let value) where path.text != "_id": return (path, [value])
        case .in(let path, let values) where path.text != "_id": return (path, values)
        case .and(let clauses):
            for clause in clauses { if let required = clause.requiredValues { return required } }
            return nil
        default: return nil
        }
    }
}
