import Foundation
import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// `object.query` against a reference evaluation written here (a plain Swift filter over the same objects):
/// every clause kind, nested paths, missing fields, mixed types, ordering, and paging under concurrent inserts.
struct ObjectQueryTests {
    /// Random objects of mixed shapes: some fields missing, some of another type, some nested.
    static func objects(count: Int) -> [JSONValue] {
        var generator = SystemRandomNumberGenerator()
        let names = ["ann", "bob", "bo", "cy", "Ünï", "b"]
        return (0..<count).map { index in
            var fields: [String: JSONValue] = ["i": .int(Int64(index))]
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: break
            case 1: fields["age"] = .string("old")
            case 2: fields["age"] = .double(Double(Int.random(in: 0..<100, using: &generator)) + 0.5)
            default: fields["age"] = .int(Int64.random(in: 0..<100, using: &generator))
            }
            if Bool.random(using: &generator) { fields["name"] = .string(names.randomElement(using: &generator)!) }
            if Int.random(in: 0..<3, using: &generator) == 0 { fields["flag"] = .bool(Bool.random(using: &generator)) }
            if Bool.random(using: &generator) {
                fields["address"] = ["city": .string(["Tokyo", "Osaka", "Kyoto"].randomElement(using: &generator)!), "zip": .int(Int64(index % 7))]
            } else if Int.random(in: 0..<4, using: &generator) == 0 {
                fields["address"] = "unknown"
            }
            return .object(fields)
        }
    }

    /// The reference: what each clause means, written independently of the daemon's evaluator.
    static func reference(_ clause: JSONValue, _ object: [String: JSONValue]) -> Bool? {
        func lookup(_ path: String) -> JSONValue? {
            var current: JSONValue? = .object(object)
            for key in path.split(separator: ".") {
                guard case .object(let members)? = current else { return nil }
                current = members[String(key)]
            }
            return current
        }
        func number(_ value: JSONValue?) -> Double? {
            switch value {
            case .int(let n)?: Double(n)
            case .double(let n)?: n
            default: nil
            }
        }
        func order(_ a: JSONValue, _ b: JSONValue) -> Int? {
            if let x = number(a), let y = number(b) { return x == y ? 0 : (x < y ? -1 : 1) }
            if case .string(let x) = a, case .string(let y) = b {
                return Array(x.utf8) == Array(y.utf8) ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
            }
            if case .bool(let x) = a, case .bool(let y) = b { return x == y ? 0 : 1 }
            return nil
        }
        let type = clause["type"]!.stringValue!
        let field = clause["field"]?.stringValue ?? ""
        switch type {
        case "all": return true
        case "and":
            let results = clause["clauses"]!.arrayItems.map { reference($0, object) }
            if results.contains(false) { return false }
            return results.contains(nil) ? nil : true
        case "or":
            let results = clause["clauses"]!.arrayItems.map { reference($0, object) }
            if results.contains(true) { return true }
            return results.contains(nil) ? nil : false
        case "not": return reference(clause["clause"]!, object).map { !$0 }
        case "hasField":
            switch (lookup(field), clause["fieldType"]!.stringValue!) {
            case (.string?, "STRING"), (.int?, "INTEGER"), (.double?, "DECIMAL"), (.bool?, "BOOLEAN"): return true
            default: return false
            }
        default:
            guard let value = lookup(field), value != .null else { return nil }
            switch value {
            case .array, .object: return false
            default: break
            }
            switch type {
            case "eq": return order(value, clause["value"]!) == 0
            case "in": return clause["values"]!.arrayItems.contains { order(value, $0) == 0 }
            case "prefix":
                guard case .string(let text) = value else { return false }
                return text.hasPrefix(clause["prefix"]!.stringValue!) && text.utf8.starts(with: clause["prefix"]!.stringValue!.utf8)
            case "range":
                if let lower = clause["lowerLimit"] {
                    guard let o = order(value, lower), o > 0 || (o == 0 && clause["lowerIncluded"]?.boolValue != false) else { return false }
                }
                if let upper = clause["upperLimit"] {
                    guard let o = order(value, upper), o < 0 || (o == 0 && clause["upperIncluded"]?.boolValue != false) else { return false }
                }
                return true
            default: return false
            }
        }
    }

    static let clauses: [JSONValue] = [
        ["type": "all"],
        ["type": "eq", "field": "name", "value": "bob"],
        ["type": "eq", "field": "age", "value": 42],
        ["type": "eq", "field": "flag", "value": true],
        ["type": "eq", "field": "address.city", "value": "Tokyo"],
        ["type": "not", "clause": ["type": "eq", "field": "name", "value": "bob"]],
        ["type": "prefix", "field": "name", "prefix": "b"],
        ["type": "prefix", "field": "address.city", "prefix": "K"],
        ["type": "range", "field": "age", "lowerLimit": 20, "lowerIncluded": true, "upperLimit": 60, "upperIncluded": false],
        ["type": "range", "field": "age", "upperLimit": 30.5],
        ["type": "range", "field": "name", "lowerLimit": "b", "upperLimit": "c", "upperIncluded": false],
        ["type": "in", "field": "name", "values": ["ann", "cy", "Ünï"]],
        ["type": "in", "field": "address.zip", "values": [1, 3, 5]],
        ["type": "hasField", "field": "age", "fieldType": "INTEGER"],
        ["type": "hasField", "field": "age", "fieldType": "DECIMAL"],
        ["type": "hasField", "field": "address", "fieldType": "STRING"],
        [
            "type": "and",
            "clauses": [
                [
                    "type": "or",
                    "clauses": [["type": "range", "field": "age", "upperLimit": 18], ["type": "range", "field": "age", "lowerLimit": 65]],
                ],
                ["type": "eq", "field": "name", "value": "ann"],
            ],
        ],
        [
            "type": "and",
            "clauses": [
                ["type": "eq", "field": "address.city", "value": "Osaka"],
                ["type": "not", "clause": ["type": "eq", "field": "flag", "value": true]],
            ],
        ],
        [
            "type": "or",
            "clauses": [["type": "eq", "field": "name", "value": "cy"], ["type": "hasField", "field": "flag", "fieldType": "BOOLEAN"]],
        ],
        [
            "type": "not",
            "clause": ["type": "or", "clauses": [["type": "eq", "field": "name", "value": "cy"], ["type": "eq", "field": "age", "value": 1]]],
        ],
    ]

    @Test func everyClauseKindMatchesTheReference() async throws {
        let temp = try TemporaryStore()
        let objects = ObjectService(store: temp.store)
        let admin = Caller(peer: .init(uid: 0, gid: 0, pid: 1), isAdmin: true)
        var stored: [String: [String: JSONValue]] = [:]
        for body in Self.objects(count: 400) {
            let object = try await objects.create(caller: admin, scope: .app, bucket: "people", body: body, objectID: nil)
            stored[object.objectID] = object.view
        }
        for clauseJSON in Self.clauses {
            let clause = try ObjectClause(json: clauseJSON)
            let expected = Set(stored.filter { Self.reference(clauseJSON, $0.value) == true }.keys)
            var found: [String] = []
            var key: String?
            repeat {
                let page = try await objects.query(
                    caller: admin,
                    scope: .app,
                    bucket: "people",
                    clause: clause,
                    orderBy: nil,
                    descending: false,
                    limit: 13,
                    paginationKey: key
                )
                #expect(page.objects.count <= 13)
                found += page.objects.map(\.objectID)
                key = page.nextPaginationKey
            } while key != nil
            #expect(found.count == Set(found).count, "\(clauseJSON): an object twice")
            #expect(Set(found) == expected, "\(clauseJSON)")
        }
        // Ordered by a field: index order (numbers by value, then strings), objects without it last.
        for descending in [false, true] {
            var ages: [JSONValue?] = []
            var key: String?
            repeat {
                let page = try await objects.query(
                    caller: admin,
                    scope: .app,
                    bucket: "people",
                    clause: .all,
                    orderBy: try FieldPath("age", field: "orderBy"),
                    descending: descending,
                    limit: 50,
                    paginationKey: key
                )
                ages += page.objects.map { $0.fields["age"] }
                key = page.nextPaginationKey
            } while key != nil
            #expect(ages.count == 400)
            let present = ages.prefix { $0 != nil }.map { FieldValue($0!)! }
            #expect(ages.dropFirst(present.count).allSatisfy { $0 == nil })
            for (a, b) in zip(present, present.dropFirst()) {
                let order = a.kind == b.kind ? a.compare(b)! : (a.kind < b.kind ? -1 : 1)
                #expect(descending ? order >= 0 : order <= 0, "\(a) before \(b)")
            }
        }
    }

    @Test func pagesAreStableUnderConcurrentInserts() async throws {
        let temp = try TemporaryStore()
        let objects = ObjectService(store: temp.store)
        let admin = Caller(peer: .init(uid: 0, gid: 0, pid: 1), isAdmin: true)
        var existing: Set<String> = []
        for index in 0..<300 {
            existing.insert(
                try await objects.create(caller: admin, scope: .app, bucket: "b1", body: ["i": .int(Int64(index)), "k": "x"], objectID: nil).objectID
            )
        }
        for clause in [ObjectClause.all, .eq(try FieldPath("k", field: "f"), .string("x"))] {
            let writer = Task {
                for index in 0..<200 {
                    _ = try await objects.create(
                        caller: admin,
                        scope: .app,
                        bucket: "b1",
                        body: ["i": .int(Int64(1000 + index)), "k": "x"],
                        objectID: nil
                    )
                }
            }
            var seen: [String] = []
            var key: String?
            repeat {
                let page = try await objects.query(
                    caller: admin,
                    scope: .app,
                    bucket: "b1",
                    clause: clause,
                    orderBy: nil,
                    descending: false,
                    limit: 20,
                    paginationKey: key
                )
                seen += page.objects.map(\.objectID)
                key = page.nextPaginationKey
            } while key != nil
            try await writer.value
            #expect(seen.count == Set(seen).count, "no object twice")
            #expect(existing.isSubset(of: Set(seen)), "none that existed throughout skipped")
            existing = Set(
                try await objects.query(
                    caller: admin,
                    scope: .app,
                    bucket: "b1",
                    clause: .all,
                    orderBy: nil,
                    descending: false,
                    limit: 500,
                    paginationKey: nil
                ).objects.map(\.objectID)
            )
        }
    }

    @Test func clausesPastTheLimitsAreRefused() throws {
        var deep: JSONValue = ["type": "all"]
        for _ in 0..<20 { deep = ["type": "not", "clause": deep] }
        let wide: JSONValue = ["type": "or", "clauses": .array(Array(repeating: ["type": "eq", "field": "a", "value": 1], count: 300))]
        let manyValues: JSONValue = ["type": "in", "field": "a", "values": .array((0..<201).map { .int(Int64($0)) })]
        let cases: [(JSONValue, GuildError.Code)] = [
            (deep, .invalidInput), (wide, .invalidInput), (manyValues, .invalidInput),
            (["type": "regex", "field": "a", "pattern": ".*"], .queryNotSupported),
            (["type": "geobox", "field": "a"], .queryNotSupported),
            (["type": "eq", "field": "a"], .invalidInput),
            (["type": "eq", "field": "a..b", "value": 1], .invalidInput),
            (["type": "eq", "field": "_secret", "value": 1], .invalidInput),
            (["type": "range", "field": "a", "lowerLimit": true], .invalidInput),
            (["type": "range", "field": "a", "lowerLimit": 1, "upperLimit": "z"], .invalidInput),
            (["type": "in", "field": "a", "values": [1, "x"]], .invalidInput),
            (["type": "and", "clauses": []], .invalidInput),
            ("eq", .invalidInput),
        ]
        for (json, expected) in cases {
            #expect(throws: GuildError(expected, ""), "\(json)") { _ = try ObjectClause(json: json) }
        }
        #expect(throws: GuildError(.invalidInput, "")) { _ = try ObjectCursor(bytes: Array("not-a-key".utf8)) }
    }
}

extension JSONValue {
    fileprivate var arrayItems: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }
}
