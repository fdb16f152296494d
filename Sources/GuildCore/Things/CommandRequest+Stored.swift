import GuildJSON

extension CommandRequest {
    /// The request as both engines store it: a JSON object of its actions, schema and optional title,
    /// description and metadata. Its issuer is a column of its own (a trigger's stored command adds it).
    public var storedJSON: [String: JSONValue] {
        var json: [String: JSONValue] = [
            "actions": .array(self.actions),
            "schema": .string(self.schema),
            "schemaVersion": .int(Int64(self.schemaVersion)),
        ]
        if let title = self.title { json["title"] = .string(title) }
        if let description = self.description { json["description"] = .string(description) }
        if let metadata = self.metadata { json["metadata"] = .object(metadata) }
        return json
    }

    /// A request from its issuer's typed id and its stored JSON (``storedJSON``).
    public init(issuer: String, storedJSON json: [String: JSONValue]) throws {
        guard case .array(let actions) = json["actions"] else {
            throw GuildError(.invalidInput, "a stored command has no actions")
        }
        self.init(
            actions: actions,
            issuer: try ThingOwner(typedID: issuer, field: "issuer"),
            schema: json["schema"]?.stringValue ?? "",
            schemaVersion: Int(json["schemaVersion"]?.intValue ?? 1),
            title: json["title"]?.stringValue,
            description: json["description"]?.stringValue,
            metadata: json["metadata"]?.objectValue
        )
    }
}
