import GuildJSON

extension ObjectClause {
    /// Parses a clause as Kii's SDKs write it (`{"type": "eq", "field": ..., "value": ...}`). An unknown or
    /// unsupported type is `queryNotSupported`; a malformed clause or one past the limits is `invalidInput`
    /// naming `field`.
    public init(json: JSONValue, field: String = "clause") throws(GuildError) {
        var budget = Self.maximumClauses
        self = try Self.parse(json, depth: 1, budget: &budget, field: field)
    }

    private static func parse(_ json: JSONValue, depth: Int, budget: inout Int, field: String) throws(GuildError) -> ObjectClause {
        guard depth <= Self.maximumDepth else {
            throw .invalidInput("clauses nest at most \(Self.maximumDepth) deep", field: field)
        }
        budget -= 1
        guard budget >= 0 else { throw .invalidInput("a query has at most \(Self.maximumClauses) clauses", field: field) }
        guard case .object(let members) = json else { throw .invalidInput("a clause is a JSON object", field: field) }
        guard case .string(let type)? = members["type"] else {
            throw .invalidInput("a clause needs a string type", field: field)
        }
        func path() throws(GuildError) -> FieldPath {
            guard case .string(let text)? = members["field"] else {
                throw .invalidInput("a \(type) clause needs a string field", field: field)
            }
            return try FieldPath(text, field: field)
        }
        func scalar(_ value: JSONValue?, _ name: String) throws(GuildError) -> FieldValue {
            guard let value, let scalar = FieldValue(value) else {
                throw .invalidInput("\(type): \(name) is a string, number or Boolean", field: field)
            }
            if case .string(let text) = scalar, text.utf8.count > Self.maximumStringBytes {
                throw .invalidInput("\(type): \(name) is at most \(Self.maximumStringBytes) bytes", field: field)
            }
            return scalar
        }
        func children() throws(GuildError) -> [ObjectClause] {
            guard case .array(let items)? = members["clauses"], !items.isEmpty else {
                throw .invalidInput("\(type) needs a non-empty clauses array", field: field)
            }
            var clauses: [ObjectClause] = []
            for item in items { clauses.append(try Self.parse(item, depth: depth + 1, budget: &budget, field: field)) }
            return clauses
        }
        switch type {
        case "all":
            return .all
        case "eq":
            return .eq(try path(), try scalar(members["value"], "value"))
        case "prefix":
            guard case .string(let prefix)? = members["prefix"], prefix.utf8.count <= Self.maximumStringBytes else {
                throw .invalidInput("prefix needs a string prefix (at most \(Self.maximumStringBytes) bytes)", field: field)
            }
            return .prefix(try path(), prefix)
        case "range":
            let field = try path()
            func bound(_ limit: String, _ included: String) throws(GuildError) -> Bound? {
                guard let value = members[limit] else { return nil }
                let scalar = try scalar(value, limit)
                if case .bool = scalar { throw .invalidInput("range: \(limit) is a number or a string", field: field.text) }
                var flag = true
                if let given = members[included] {
                    guard case .bool(let value) = given else { throw .invalidInput("range: \(included) is a Boolean", field: field.text) }
                    flag = value
                }
                return Bound(scalar, included: flag)
            }
            let lower = try bound("lowerLimit", "lowerIncluded")
            let upper = try bound("upperLimit", "upperIncluded")
            guard lower != nil || upper != nil else {
                throw .invalidInput("range needs lowerLimit, upperLimit or both", field: "clause")
            }
            if let lower, let upper, lower.value.kind != upper.value.kind {
                throw .invalidInput("range: both limits are numbers, or both strings", field: "clause")
            }
            return .range(field, lower: lower, upper: upper)
        case "in":
            let field = try path()
            guard case .array(let items)? = members["values"], !items.isEmpty else {
                throw .invalidInput("in needs a non-empty values array", field: "clause")
            }
            guard items.count <= Self.maximumInValues else {
                throw .invalidInput("in takes at most \(Self.maximumInValues) values", field: "clause")
            }
            var values: [FieldValue] = []
            for item in items { values.append(try scalar(item, "values")) }
            guard Set(values.map(\.kind)).count == 1 else {
                throw .invalidInput("in: the values are all of one type", field: "clause")
            }
            return .in(field, values)
        case "not":
            guard let inner = members["clause"] else { throw .invalidInput("not needs a clause", field: field) }
            return .not(try Self.parse(inner, depth: depth + 1, budget: &budget, field: field))
        case "and":
            let clauses = try children()
            return clauses.count == 1 ? clauses[0] : .and(clauses)
        case "or":
            let clauses = try children()
            return clauses.count == 1 ? clauses[0] : .or(clauses)
        case "hasField":
            guard case .string(let name)? = members["fieldType"], let fieldType = FieldType(rawValue: name.uppercased()) else {
                throw .invalidInput(
                    "hasField needs a fieldType: \(FieldType.allCases.map(\.rawValue).joined(separator: ", "))",
                    field: field
                )
            }
            return .hasField(try path(), fieldType)
        default:
            throw GuildError(
                .queryNotSupported,
                "clause type \(type.prefix(64)) is not supported; supported: all, eq, prefix, range, in, not, and, or, hasField",
                field: field
            )
        }
    }
}
