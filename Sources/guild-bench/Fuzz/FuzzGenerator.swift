import Foundation

/// Makes JSON-RPC messages for `guild-bench fuzz`: calls of the methods `rpc.discover` lists, with params
/// shaped like their schemas (real user and group IDs and tokens where the names say so) and then mutated:
/// wrong types, huge, empty and NUL-bearing strings, deep nesting, big arrays, odd numbers, missing or extra
/// params, odd ids and envelopes; sent alone, as notifications, in batches or pipelined.
///
/// Every message is valid UTF-8 JSON text (the mutations are structural, not byte noise: the frame decoder
/// has its own fuzz target); one line each, without the `\n`.
struct FuzzGenerator {
    /// The kind of value a param's schema asks for.
    enum Shape: Sendable {
        case string, integer, number, boolean, stringArray, object
        case choice([String])
        case any
    }

    struct Param: Sendable {
        var name: String
        var shape: Shape
        var required: Bool
    }

    struct Method: Sendable {
        var name: String
        var params: [Param]
    }

    /// IDs the valid values are drawn from.
    struct Known: Sendable {
        var userIDs: [String]
        var groupIDs: [String]
        var tokens: [String]
    }

    let methods: [Method]
    let known: Known
    private var random: SplitMix64
    private var nextID = 1
    /// Set while making the entries of a big batch: no huge values in them (the batch is big enough).
    private var mild = false

    init(methods: [Method], known: Known, seed: UInt64) {
        self.methods = methods
        self.known = known
        self.random = SplitMix64(seed: seed)
    }

    /// The methods and param shapes of an OpenRPC document (the result of `rpc.discover`).
    static func methods(fromDiscover document: Any) -> [Method] {
        guard let object = document as? [String: Any], let list = object["methods"] as? [[String: Any]] else { return [] }
        return list.compactMap { entry in
            guard let name = entry["name"] as? String else { return nil }
            let params = (entry["params"] as? [[String: Any]] ?? []).compactMap { param -> Param? in
                guard let paramName = param["name"] as? String else { return nil }
                return Param(name: paramName, shape: Self.shape(param["schema"]), required: param["required"] as? Bool ?? false)
            }
            return Method(name: name, params: params)
        }
    }

    private static func shape(_ schema: Any?) -> Shape {
        guard let schema = schema as? [String: Any] else { return .any }
        if let choices = schema["enum"] as? [Any] { return .choice(choices.compactMap { $0 as? String }) }
        let type = (schema["type"] as? String) ?? (schema["type"] as? [String])?.first
        switch type {
        case "string": return .string
        case "integer": return .integer
        case "number": return .number
        case "boolean": return .boolean
        case "array": return .stringArray
        case "object": return .object
        default: return .any
        }
    }

    // MARK: - Messages

    /// What one round of a fuzz connection sends: one or more lines (pipelined), and how many reply lines
    /// they should bring at most.
    struct Round {
        var bytes: [UInt8] = []
        var expectedReplies = 0
    }

    mutating func round() -> Round {
        var round = Round()
        let roll = self.random.below(100)
        if roll < 55 {
            self.append(self.request(notification: false), to: &round, replies: 1)
        } else if roll < 65 {
            self.append(self.request(notification: true), to: &round, replies: 0)
        } else if roll < 80 {
            // A batch: mostly small, sometimes up to the 1,000-entry limit, now and then empty or over it.
            let size = self.random.chance(5) ? 1_001 : self.random.chance(10) ? self.random.below(1_000) + 1 : self.random.below(20) + 1
            self.mild = size > 20
            let entries = (0..<size).map { _ in self.request(notification: self.random.chance(15)) }
            self.mild = false
            self.append("[" + entries.joined(separator: ",") + "]", to: &round, replies: 1)
        } else if roll < 95 {
            // Pipelined: several requests before any reply is read.
            for _ in 0..<(self.random.below(30) + 2) { self.append(self.request(notification: false), to: &round, replies: 1) }
        } else {
            self.append(self.oddMessage(), to: &round, replies: 1)
        }
        return round
    }

    private func append(_ line: String, to round: inout Round, replies: Int) {
        round.bytes += Array(line.utf8)
        round.bytes.append(UInt8(ascii: "\n"))
        round.expectedReplies += replies
    }

    /// True with `percent` % probability, from the generator's own stream (so `--seed` repeats it).
    mutating func coin(percent: Int) -> Bool {
        self.random.chance(percent)
    }

    /// A session for this connection: `session.authenticate` with a known token.
    mutating func authenticate() -> [UInt8] {
        let token = self.known.tokens.isEmpty ? "" : self.known.tokens[self.random.below(self.known.tokens.count)]
        return Array(#"{"jsonrpc":"2.0","id":0,"method":"session.authenticate","params":{"accessToken":\#(Self.quote(token))}}"#.utf8) + [
            UInt8(ascii: "\n")
        ]
    }

    /// One call of a discovered method, params shaped by the schema and then mutated.
    mutating func request(notification: Bool) -> String {
        guard !self.methods.isEmpty else { return #"{"jsonrpc":"2.0","id":1,"method":"system.ping"}"# }
        let method = self.methods[self.random.below(self.methods.count)]
        var members: [String] = []
        for param in method.params {
            // Optional params present half the time; required ones almost always.
            if param.required ? self.random.chance(3) : self.random.chance(50) { continue }
            let value = self.random.chance(25) ? self.mutated(param) : self.valid(param)
            members.append(Self.quote(param.name) + ":" + value)
        }
        if self.random.chance(5) { members.append(Self.quote("unexpected") + ":" + self.anyValue()) }
        var params = "{" + members.joined(separator: ",") + "}"
        if self.random.chance(4) { params = "[" + members.map { String($0.drop(while: { $0 != ":" }).dropFirst()) }.joined(separator: ",") + "]" }
        if self.random.chance(4) { params = self.anyValue() }
        var envelope: [String] = [#""jsonrpc":"2.0""#]
        if !notification { envelope.append(#""id":"# + self.id()) }
        envelope.append(#""method":"# + Self.quote(self.random.chance(3) ? self.mutatedString(method.name) : method.name))
        if !(method.params.isEmpty && self.random.chance(50)) { envelope.append(#""params":"# + params) }
        if self.random.chance(3) { envelope.shuffle(using: &self.random) }
        return "{" + envelope.joined(separator: ",") + "}"
    }

    private mutating func id() -> String {
        self.nextID += 1
        switch self.random.below(40) {
        case 0: return "null"
        case 1: return Self.quote("id-\(self.nextID)")
        case 2: return "1.5"
        case 3: return "99999999999999999999999"
        case 4: return "[1]"
        case 5: return "-1"
        default: return "\(self.nextID)"
        }
    }

    /// Messages that are not calls at all, or barely.
    private mutating func oddMessage() -> String {
        switch self.random.below(8) {
        case 0: return "[]"
        case 1: return "{}"
        case 2: return #"{"jsonrpc":"1.0","id":1,"method":"system.ping"}"#
        case 3: return self.deep(self.random.below(5_000) + 10)
        case 4: return #"{"jsonrpc":"2.0","id":1,"method":"system.ping","params":"# + self.deep(self.random.below(5_000) + 10) + "}"
        case 5: return "[" + (0..<(self.random.below(50) + 1)).map { _ in self.anyValue() }.joined(separator: ",") + "]"
        case 6: return #"{"jsonrpc":"2.0","id":1,"method":null}"#
        default: return self.anyValue()
        }
    }

    // MARK: - Values

    private mutating func valid(_ param: Param) -> String {
        switch param.shape {
        case .string: return Self.quote(self.validString(for: param.name))
        case .integer: return self.random.chance(50) ? "0" : "\(self.random.below(100))"
        case .number: return "\(Double(self.random.below(2_000)) / 8 - 100)"
        case .boolean: return self.random.chance(50) ? "true" : "false"
        case .stringArray:
            let count = self.random.below(4) + 1
            return "[" + (0..<count).map { _ in Self.quote(self.validString(for: param.name)) }.joined(separator: ",") + "]"
        case .object: return #"{"k":"v","n":"1"}"#
        case .choice(let values): return values.isEmpty ? "null" : Self.quote(values[self.random.below(values.count)])
        case .any: return self.anyValue()
        }
    }

    private mutating func validString(for name: String) -> String {
        let lower = name.lowercased()
        func pick(_ values: [String]) -> String { values.isEmpty ? "x" : values[self.random.below(values.count)] }
        if lower.contains("group") { return pick(self.known.groupIDs + ["nosuchgroup"]) }
        if lower.contains("user") || lower == "owner" { return pick(self.known.userIDs + ["nosuchuser"]) }
        if lower.contains("token") { return pick(self.known.tokens) }
        if lower.contains("password") { return "password-\(self.random.below(4))" }
        if lower.contains("email") { return "u\(self.random.below(1_000))@example.org" }
        if lower.contains("phone") { return "+1555\(self.random.below(1_000_000))" }
        if lower == "username" { return "user\(self.random.below(10_000))" }
        if lower == "subscription" { return "s\(self.random.below(10))" }
        return "fuzz \(self.random.below(1_000_000))"
    }

    private mutating func mutated(_ param: Param) -> String {
        var choice = self.random.below(12)
        if self.mild, [4, 5, 6, 9].contains(choice) { choice = 0 }
        switch choice {
        case 0: return self.anyValue()  // most likely the wrong type
        case 1: return "null"
        case 2: return Self.quote("")
        case 3: return Self.quote(self.validString(for: param.name) + "\\u0000hidden")
        case 4: return Self.quote(String(repeating: "x", count: self.random.chance(2) ? 1 << 20 : self.random.below(65_536)))
        case 5: return self.deep(self.random.below(3_000) + 50)
        case 6:
            let count = self.random.chance(2) ? 100_000 : self.random.below(5_000) + 100
            let item = Self.quote(self.validString(for: param.name))
            return "[" + Array(repeating: item, count: count).joined(separator: ",") + "]"
        case 7: return ["1e308", "-0", "1.5", "99999999999999999999999", "-9223372036854775809", "1E400"][self.random.below(6)]
        case 8: return Self.quote(self.mutatedString(self.validString(for: param.name)))
        case 9: return "{" + (0..<(self.random.below(2_000) + 1)).map { #""k\#($0)":"v""# }.joined(separator: ",") + "}"
        case 10: return #""\ud83d\ude00 \u00e9 \ud7ff""#
        default: return "[" + self.valid(param) + "]"
        }
    }

    /// A string with a twist: a cut, a doubled part, a case change or a control character.
    private mutating func mutatedString(_ text: String) -> String {
        switch self.random.below(5) {
        case 0: return String(text.prefix(self.random.below(max(text.count, 1))))
        case 1: return text + text
        case 2: return text.uppercased()
        case 3: return text + "\\t\\n"
        default: return " " + text
        }
    }

    /// A random JSON value of any type.
    private mutating func anyValue() -> String {
        switch self.random.below(8) {
        case 0: return "null"
        case 1: return "true"
        case 2: return "\(self.random.below(1_000_000))"
        case 3: return "-12.5e3"
        case 4: return Self.quote("str")
        case 5: return "[]"
        case 6: return "{}"
        default: return #"[{"a":[1,"2",null]}]"#
        }
    }

    /// `depth` nested arrays.
    private func deep(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    /// A JSON string literal for plain text (the escapes the generator writes are already JSON escapes).
    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "'") + "\""
    }
}

/// A small, fast, seedable generator (SplitMix64), so that a fuzz run can be repeated with `--seed`.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0..<bound.
    mutating func below(_ bound: Int) -> Int {
        Int(self.next() % UInt64(max(bound, 1)))
    }

    /// True with `percent` % probability.
    mutating func chance(_ percent: Int) -> Bool {
        self.below(100) < percent
    }
}
