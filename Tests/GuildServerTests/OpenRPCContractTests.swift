import Foundation
import GuildCore
import GuildProtocol
import GuildTestSupport
import Testing

@testable import GuildServer

/// `protocol/openrpc.json` and the code must agree: names, who may call, params, results.
@Suite(.timeLimit(.minutes(10)))
struct OpenRPCContractTests {
    /// Every method type of the wire contract, as declared; this suite fails until registry, document and
    /// types agree.
    static let methodTypes: [any RPCMethod.Type] = OpenRPCContract.methods

    static var document: [[String: Any]] {
        let object = try? JSONSerialization.jsonObject(with: Data(OpenRPCDocument.compactJSON)) as? [String: Any]
        return object?["methods"] as? [[String: Any]] ?? []
    }

    @Test func theServedDocumentIsTheCommittedFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try Data(contentsOf: root.appendingPathComponent("protocol/openrpc.json"))
        let fromFile = try JSONSerialization.jsonObject(with: file) as? NSDictionary
        let served = try JSONSerialization.jsonObject(with: Data(OpenRPCDocument.compactJSON)) as? NSDictionary
        #expect(fromFile == served)
        #expect(!OpenRPCDocument.compactJSON.contains(0x0A))
    }

    /// `Event` is one of the areas' events, each schema made from the area's declarations: its kinds, the
    /// members every event has, and its own members.
    @Test func theEventSchemaIsOneOfEachAreasEventsAsDeclared() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenRPCDocument.compactJSON)) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let event = try #require(schemas["Event"] as? [String: Any])
        let references = try #require(event["oneOf"] as? [[String: String]]).compactMap { $0["$ref"] }
        #expect(references == ["#/components/schemas/GroupEvent", "#/components/schemas/BucketEvent", "#/components/schemas/ThingEvent"])
        var kinds: [String] = []
        for area in EventAreas.declared {
            let name = area.area.prefix(1).uppercased() + area.area.dropFirst() + "Event"
            let schema = try #require(schemas[name] as? [String: Any], "no schema \(name)")
            let properties = try #require(schema["properties"] as? [String: [String: Any]])
            #expect(Set(properties.keys) == area.fieldNames)
            #expect(properties["kind"]?["enum"] as? [String] == area.kinds)
            let required = try #require(schema["required"] as? [String])
            #expect(Set(["seq", "kind", "time"]).isSubset(of: required) && Set(required).isSubset(of: properties.keys))
            kinds += area.kinds
        }
        #expect(Set(kinds).count == kinds.count, "a kind in two areas would match two of Event's schemas")
        // The notification's params carry an Event.
        let notifications = try #require(document["x-notifications"] as? [[String: Any]])
        #expect(String(describing: notifications).contains("#/components/schemas/Event"))
    }

    @Test func registryDocumentAndMethodTypesNameTheSameMethods() async throws {
        try await TestDaemon.run { _, server in
            let registered = Set(server.dispatcher.registry.methodNames)
            let documented = Set(Self.document.compactMap { $0["name"] as? String })
            let typed = Set(Self.methodTypes.map { $0.name })
            #expect(registered.subtracting(documented).isEmpty, "registered but not documented: \(registered.subtracting(documented))")
            #expect(documented.subtracting(registered).isEmpty, "documented but not registered: \(documented.subtracting(registered))")
            #expect(typed == registered, "method types and registry differ: \(typed.symmetricDifference(registered))")
        }
    }

    @Test func xAuthMatchesTheEnforcedAccess() async throws {
        try await TestDaemon.run { _, server in
            for method in Self.document {
                let name = try #require(method["name"] as? String)
                let documented = method["x-auth"] as? String
                #expect(documented == server.dispatcher.registry.access(of: name)?.rawValue, "\(name)")
            }
        }
    }

    @Test func xExpensiveMatchesTheDeclaredCost() {
        for type in Self.methodTypes {
            let entry = Self.document.first { $0["name"] as? String == type.name }
            let documented = entry?["x-expensive"] as? Bool ?? false
            #expect(documented == type.isExpensive, "\(type.name): x-expensive \(documented), declared \(type.isExpensive)")
            let errors = (entry?["errors"] as? [[String: Any]] ?? []).compactMap { ($0["data"] as? [String: Any])?["reason"] as? String }
            #expect(errors.contains("SERVER_BUSY") == type.isExpensive, "\(type.name) lists SERVER_BUSY only if expensive")
        }
    }

    @Test func listParamsDocumentTheEnforcedItemLimit() {
        for type in Self.methodTypes {
            let entry = Self.document.first { $0["name"] as? String == type.name }
            for param in entry?["params"] as? [[String: Any]] ?? [] {
                let schema = param["schema"] as? [String: Any] ?? [:]
                guard let kind = schema["type"] as? String, kind == "array" || kind == "object" else { continue }
                let name = param["name"] as? String ?? ""
                let documented = (schema["maxItems"] ?? schema["maxProperties"]) as? Int
                #expect(documented == type.itemLimits[name] ?? MethodRegistry.defaultItemLimit, "\(type.name).\(name)")
            }
        }
    }

    @Test func exampleResultsDecodeIntoTheResultTypes() throws {
        for type in Self.methodTypes {
            try Self.checkResultExample(type)
        }
    }

    private static func checkResultExample<M: RPCMethod>(_ method: M.Type) throws {
        let entry = try #require(Self.document.first { $0["name"] as? String == M.name })
        let example = try #require((entry["examples"] as? [[String: Any]])?.first)
        let result = try #require(example["result"] as? [String: Any])
        let value = result["value"] ?? NSNull()
        let bytes = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
        #expect(throws: Never.self, "\(M.name): the example result does not decode as \(M.Result.self)") {
            _ = try RPCCoding.decode(M.Result.self, from: bytes)
        }
    }

    /// Sends each method its documented example params (must not be refused as invalid params), then the
    /// example without each required param (must be refused naming it), then each param with a wrong type
    /// (must be refused naming it).
    @Test func documentedParamsAreTheParamsTheDaemonReads() async throws {
        try await TestDaemon.run { socket, _ in
            let connection = try RawConnection(path: socket)
            var nextID = 0
            func call(_ method: String, _ params: [String: Any]) async throws -> [String: Any] {
                nextID += 1
                let request: [String: Any] = ["jsonrpc": "2.0", "id": nextID, "method": method, "params": params]
                await connection.send(Array(try JSONSerialization.data(withJSONObject: request)) + [0x0A])
                return try #require(await connection.readJSON() as? [String: Any])
            }
            for method in Self.document {
                let name = try #require(method["name"] as? String)
                guard method["paramStructure"] as? String != "by-position" else { continue }
                let params = try #require(method["params"] as? [[String: Any]])
                let example = try #require((method["examples"] as? [[String: Any]])?.first)
                var values: [String: Any] = [:]
                for pair in example["params"] as? [[String: Any]] ?? [] {
                    values[pair["name"] as! String] = pair["value"]
                }
                let reply = try await call(name, values)
                #expect(reply.errorReason != "INVALID_PARAMS", "\(name): documented example refused: \(reply)")
                #expect(reply.errorCode != -32601, "\(name) is not served")
                for param in params {
                    let paramName = try #require(param["name"] as? String)
                    if param["required"] as? Bool == true {
                        var missing = values
                        missing[paramName] = nil
                        let refused = try await call(name, missing)
                        #expect(refused.errorCode == -32602, "\(name) accepted a call without required \(paramName)")
                        #expect(refused.errorField == paramName, "\(name): \(refused)")
                    }
                    let schema = param["schema"] as? [String: Any]
                    if schema?["type"] as? String == "string" {
                        var wrong = values
                        wrong[paramName] = ["not": "a string"]
                        let refused = try await call(name, wrong)
                        #expect(refused.errorCode == -32602, "\(name) accepted an object for string \(paramName)")
                        #expect(refused.errorField == paramName, "\(name): \(refused)")
                    }
                }
            }
        }
    }

    @Test func everyDocumentedErrorIsInTheCatalog() {
        let catalog = Set(ErrorReason.catalog.flatMap { entry in entry.reasons.map { "\(entry.code.rawValue) \($0)" } })
        for method in Self.document {
            for error in method["errors"] as? [[String: Any]] ?? [] {
                let code = error["code"] as? Int ?? 0
                let reason = (error["data"] as? [String: Any])?["reason"] as? String ?? ""
                #expect(catalog.contains("\(code) \(reason)"), "\(method["name"] ?? ""): \(code) \(reason) is not in ErrorReason.catalog")
            }
        }
    }
}
