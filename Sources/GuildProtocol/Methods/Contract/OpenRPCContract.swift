import GuildJSON

/// `protocol/openrpc.json`, generated from the method declarations (``RPCMethod`` and its ``MethodContract``).
///
/// `guild-contract write` writes the document (and the other generated files); `guild-contract check` and a
/// test fail when a committed file differs from what the declarations generate.
public enum OpenRPCContract: Sendable {
    /// Every method of the wire contract, area by area. A new area adds its list here.
    public static let methods: [any RPCMethod.Type] =
        ConformanceMethods.all + SystemMethods.all + SessionMethods.all + UserMethods.all + GroupMethods.kiiMethods
        + GroupMethods.imMethods + ObjectMethods.all + ThingMethods.all + EventMethods.all

    /// The names of the expensive methods (``RPCMethod/isExpensive``), in name order: what `protocol/errors.md`
    /// lists for `SERVER_BUSY` (and a test checks `protocol/liveness.md` names).
    public static var expensiveMethodNames: [String] {
        Self.methods.filter { $0.isExpensive }.map { $0.name }.sorted()
    }

    /// The most items a list-valued param (an array or an object) may hold unless its method declares
    /// another limit in ``RPCMethod/itemLimits``.
    public static let defaultItemLimit = 1000

    /// The OpenRPC version the document follows.
    static let openRPCVersion = "1.3.2"

    /// The document's `info.description`.
    static let summary =
        "Guild's local identity, group and messaging daemon: JSON-RPC 2.0, one compact message per newline-terminated line, "
        + "over a Unix domain socket (see protocol/framing.md). `x-auth` says who may call each method: anyone who can connect, "
        + "a connection bound to a session (or an admin), or an admin (peer uid root or --admin-uid, from SO_PEERCRED). "
        + "Errors carry data.reason (protocol/errors.md). `x-expensive` marks methods that run under admission bounds "
        + "(SERVER_BUSY past them); `maxItems`/`maxProperties` bound list-valued params (TOO_MANY_ITEMS)."

    /// The whole document.
    public static func document(methods: [any RPCMethod.Type] = Self.methods) -> JSONValue {
        var schemas: [String: JSONValue] = [:]
        for (name, schema) in Self.componentSchemas {
            schemas[name] = schema
        }
        // The events' schemas, generated from the areas' declarations.
        for (name, schema) in GuildEvent.schemas {
            schemas[name] = schema
        }
        return [
            "openrpc": .string(Self.openRPCVersion),
            "info": ["title": "Guild", "version": "0.1.0", "description": .string(Self.summary)],
            "servers": [["name": "guildd", "url": "unix:/run/guild/guild.sock"]],
            "methods": .array(methods.sorted { $0.name < $1.name }.map { Self.method($0) }),
            "x-notifications": Self.notifications,
            "components": ["schemas": .object(schemas)],
        ]
    }

    /// One method's entry.
    static func method(_ method: any RPCMethod.Type) -> JSONValue {
        let contract = method.contract
        var bounded = false
        let params: [JSONValue] = contract.params.map { param in
            var schema = param.schema
            if case .object(var members) = schema, let type = members["type"]?.stringValue, type == "array" || type == "object" {
                let key = type == "array" ? "maxItems" : "maxProperties"
                if members[key] == nil {
                    members[key] = .int(Int64(method.itemLimits[param.name] ?? Self.defaultItemLimit))
                }
                schema = .object(members)
                bounded = true
            }
            var entry: [String: JSONValue] = ["name": .string(param.name), "schema": schema, "required": .bool(param.required)]
            if let description = param.description {
                entry["description"] = .string(description)
            }
            return .object(entry)
        }
        var reasons = contract.errors
        if bounded { reasons.append(ErrorReason.tooManyItems) }
        if method.isExpensive { reasons.append(ErrorReason.serverBusy) }
        if contract.writes {
            reasons += [ErrorReason.storageFull, ErrorReason.storageUnavailable, ErrorReason.writeOutcomeUnknown]
        }
        var entry: [String: JSONValue] = [
            "name": .string(method.name),
            "summary": .string(contract.summary),
            "x-auth": .string(method.access.rawValue),
            "paramStructure": .string(contract.paramStructure.rawValue),
            "params": .array(params),
            "result": ["name": .string(contract.resultName), "schema": contract.result],
            "errors": .array(reasons.map { Self.error($0, method: method.name) }),
            "examples": [
                [
                    "name": .string("\(method.name) example"),
                    "params": .array(contract.example.params.map { ["name": .string($0.key), "value": $0.value] }),
                    "result": ["name": .string(contract.resultName), "value": contract.example.result],
                ]
            ],
        ]
        if let description = contract.description {
            entry["description"] = .string(description)
        }
        if !contract.tags.isEmpty {
            entry["tags"] = .array(contract.tags.map { ["name": .string($0)] })
        }
        if method.isExpensive {
            entry["x-expensive"] = true
        }
        return .object(entry)
    }

    /// An error entry: the reason's code and summary from the catalog.
    static func error(_ reason: String, method: String) -> JSONValue {
        guard let entry = ErrorReason.entry(for: reason), let summary = entry.summary else {
            preconditionFailure("\(method) declares \(reason), which has no summary in ErrorReason.sections")
        }
        return [
            "code": .int(Int64(entry.code.rawValue)),
            "message": .string(summary),
            "data": ["reason": .string(reason)],
        ]
    }
}
