import GuildJSON

// The hot things-area params read without `JSONDecoder` (commands and states arrive thousands of times a
// second). Anything unusual (a missing or null member, a wrong type, a number JSONValue would not hold
// exactly, a repeated key) returns nil, and `JSONDecoder` decides, with its usual errors.

extension CommandMethods.Send.Params: JSONReadable {
    /// The fast path of `command.send`'s params.
    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard value.kind == .object else { return nil }
        var thingID: String?
        var actions: [JSONValue]?
        var issuer: String?
        var schema: String?
        var schemaVersion: Int64?
        var title: String?
        var description: String?
        var metadata: [String: JSONValue]?
        for member in JSONScanner(maximumDepth: .max).members(of: value, in: bytes) {
            switch member.key {
            case "thingID": thingID = member.value.string(in: bytes)
            case "actions":
                guard case .array(let items)? = JSONValue(exactly: member.value, in: bytes) else { return nil }
                actions = items
            case "issuer": issuer = member.value.string(in: bytes)
            case "schema": schema = member.value.string(in: bytes)
            case "schemaVersion": schemaVersion = member.value.int64(in: bytes)
            case "title":
                guard let text = member.value.string(in: bytes) else { return nil }
                title = text
            case "description":
                guard let text = member.value.string(in: bytes) else { return nil }
                description = text
            case "metadata":
                guard case .object(let fields)? = JSONValue(exactly: member.value, in: bytes) else { return nil }
                metadata = fields
            default: continue
            }
        }
        guard let thingID, let actions, let issuer, let schema, let schemaVersion, let version = Int(exactly: schemaVersion) else { return nil }
        self.init(
            thingID: thingID,
            .init(
                actions: actions,
                issuer: issuer,
                schema: schema,
                schemaVersion: version,
                title: title,
                description: description,
                metadata: metadata
            )
        )
    }
}

extension CommandMethods.PutResults.Params: JSONReadable {
    /// The fast path of `command.putResults`'s params.
    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard value.kind == .object else { return nil }
        var thingID: String?
        var commandID: String?
        var results: [JSONValue]?
        for member in JSONScanner(maximumDepth: .max).members(of: value, in: bytes) {
            switch member.key {
            case "thingID": thingID = member.value.string(in: bytes)
            case "commandID": commandID = member.value.string(in: bytes)
            case "actionResults":
                guard case .array(let items)? = JSONValue(exactly: member.value, in: bytes) else { return nil }
                results = items
            default: continue
            }
        }
        guard let thingID, let commandID, let results else { return nil }
        self.init(thingID: thingID, commandID: commandID, actionResults: results)
    }
}

extension ThingMethods.PutState.Params: JSONReadable {
    /// The fast path of `thing.putState`'s params.
    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard value.kind == .object else { return nil }
        var thingID: String?
        var state: [String: JSONValue]?
        var timestamp: Int64?
        for member in JSONScanner(maximumDepth: .max).members(of: value, in: bytes) {
            switch member.key {
            case "thingID": thingID = member.value.string(in: bytes)
            case "state":
                guard case .object(let fields)? = JSONValue(exactly: member.value, in: bytes) else { return nil }
                state = fields
            case "timestamp":
                guard let time = member.value.int64(in: bytes) else { return nil }
                timestamp = time
            default: continue
            }
        }
        guard let thingID, let state else { return nil }
        self.init(thingID: thingID, state: state, timestamp: timestamp)
    }
}

// The hot things-area results written by hand: what `JSONEncoder` writes, keys sorted.

extension CommandMethods.Send.Result: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("commandID", to: &bytes)
        JSONText.appendString(self.commandID, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension CommandMethods.PutResults.Result: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("commandState", to: &bytes)
        JSONText.appendString(self.commandState, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension ThingMethods.PutState.Result: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("created", to: &bytes)
        JSONText.appendBool(self.created, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("timestamp", to: &bytes)
        JSONText.appendInteger(self.timestamp, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}
