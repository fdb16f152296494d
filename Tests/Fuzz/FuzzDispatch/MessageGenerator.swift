import FuzzSupport

/// Turns fuzz bytes into JSON-RPC traffic: mutated valid calls to the server's real methods (names and
/// example params from its `rpc.discover` document), batches, notifications, ids of every kind, a few raw
/// lines, spread over up to three pipelined connections.
struct MessageGenerator {
    /// A method and its documented example params.
    struct Method {
        var name: String
        var example: JSONTree
    }

    let methods: [Method]
    /// Lines longer than this are made on purpose now and then, to check the frame limit.
    let frameLimit: Int

    /// Keys that the methods' params use, for mutations that add members.
    static let keys = [
        "groupID", "userID", "userIDs", "groupIDs", "name", "displayName", "message", "text", "since", "limit", "cursor",
        "subscription", "keys", "attributes", "role", "seconds", "filter", "nextSeq", "accessToken", "password", "username",
        "fields", "type", "members", "applicationID", "option", "notification", "introduction",
    ]

    /// The connections' lines, one array of frames (without newlines) per connection.
    func generate(_ input: inout FuzzBytes) -> [[[UInt8]]] {
        var connections = [[[UInt8]]](repeating: [], count: 1 + input.below(3))
        if input.bool() {
            // Most methods need a session: start one on the first connection.
            connections[0].append(Self.line(id: .text("s"), method: "user.registerPseudo", params: .object([])))
        }
        for index in 0..<(1 + input.below(24)) {
            let connection = input.below(connections.count)
            switch input.below(16) {
            case 0:
                let count = 1 + input.below(6)
                var batch: [JSONTree] = []
                for _ in 0..<count { batch.append(self.call(&input, index: index)) }
                connections[connection].append(ReferenceJSON.write(.array(batch)))
            case 1:
                connections[connection].append(input.run(limit: 48).filter { $0 != 0x0A })
            case 2 where self.frameLimit > 0:
                var line = ReferenceJSON.write(self.call(&input, index: index))
                line.insert(contentsOf: [UInt8](repeating: 0x20, count: self.frameLimit + 1 - min(line.count, self.frameLimit)), at: 1)
                connections[connection].append(line)
            default:
                connections[connection].append(ReferenceJSON.write(self.call(&input, index: index)))
            }
        }
        return connections
    }

    static func line(id: JSONTree?, method: String, params: JSONTree?) -> [UInt8] {
        var members = [JSONTree.Member("jsonrpc", .text("2.0"))]
        if let id { members.append(JSONTree.Member("id", id)) }
        members.append(JSONTree.Member("method", .text(method)))
        if let params { members.append(JSONTree.Member("params", params)) }
        return ReferenceJSON.write(.object(members))
    }

    private func call(_ input: inout FuzzBytes, index: Int) -> JSONTree {
        let method = self.methods[input.below(self.methods.count)]
        let name = input.below(24) == 0 ? String(decoding: input.run(limit: 16), as: UTF8.self) : method.name
        let params: JSONTree?
        switch input.below(8) {
        case 0: params = nil
        case 1: params = .object([])
        case 2: params = Self.value(&input, depth: 2)
        case 3:
            if case .object(let members) = method.example {
                params = .array(members.map(\.value))
            } else {
                params = method.example
            }
        case 4, 5: params = Self.mutate(method.example, &input)
        default: params = method.example
        }
        let id: JSONTree?
        switch input.below(6) {
        case 0: id = nil
        case 1: id = .null
        case 2: id = .text("c\(index)")
        default: id = .number(String(index))
        }
        var members = [JSONTree.Member("jsonrpc", .text("2.0"))]
        if let id { members.append(JSONTree.Member("id", id)) }
        members.append(JSONTree.Member("method", .text(name)))
        if let params { members.append(JSONTree.Member("params", params)) }
        return .object(members)
    }

    /// Replaces, removes or adds members of an example object (recursively, now and then).
    static func mutate(_ tree: JSONTree, _ input: inout FuzzBytes) -> JSONTree {
        guard case .object(var members) = tree else { return Self.value(&input, depth: 1) }
        for _ in 0..<(1 + input.below(3)) {
            let choice = input.below(4)
            if choice == 0 || members.isEmpty {
                members.append(JSONTree.Member(Self.keys[input.below(Self.keys.count)], Self.value(&input, depth: 2)))
            } else if choice == 1 {
                members.remove(at: input.below(members.count))
            } else {
                let at = input.below(members.count)
                members[at].value = choice == 2 ? Self.value(&input, depth: 2) : Self.mutate(members[at].value, &input)
            }
        }
        return .object(members)
    }

    /// A value built from the input: edge-case numbers, strings from raw bytes, lists and objects.
    static func value(_ input: inout FuzzBytes, depth: Int) -> JSONTree {
        let numbers = [
            "0", "-1", "1", "7", "1000", "1001", "9007199254740993", "9223372036854775807", "-9223372036854775808",
            "18446744073709551616", "1e308", "-1e308", "1.5", "1e-400", "2147483648",
        ]
        switch input.below(depth > 0 ? 9 : 6) {
        case 0: return .null
        case 1: return .bool(input.bool())
        case 2: return .number(numbers[input.below(numbers.count)])
        case 3: return .string(Array(String(decoding: input.run(limit: 32), as: UTF8.self).utf8))
        case 4: return .text(["", "\u{0}", "sales-div", "@TGS#2C5SZEAEF", "ALL", "admin", "Public", "AVChatRoom"][input.below(8)])
        case 5: return .text(String(repeating: "x", count: input.below(3) == 0 ? 70_000 : input.below(300)))
        case 6:
            return .array((0..<input.below(5)).map { _ in Self.value(&input, depth: depth - 1) })
        case 7:
            let count = input.below(4)
            return .array([JSONTree](repeating: .text("u"), count: count == 3 ? 1001 : count))
        default:
            return .object(
                (0..<input.below(4)).map { _ in JSONTree.Member(Self.keys[input.below(Self.keys.count)], Self.value(&input, depth: depth - 1)) }
            )
        }
    }
}
