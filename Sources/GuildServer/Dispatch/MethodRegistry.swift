import GuildCore
import GuildJSON
import GuildProtocol

/// Every method the daemon serves: its name, who may call it, and how it runs.
///
/// Methods are registered with their wire types from `GuildProtocol`, so params are decoded into (and results
/// encoded from) exactly the types clients use. Inline methods are cheap, touch no storage, and run on the
/// connection's event loop without a task hop; immediate reads run there too when they can, on the loop
/// thread's own read-only connection (see ``registerRead(_:store:_:)``); all others run as child tasks of their
/// connection.
public struct MethodRegistry: Sendable {
    /// How a method runs.
    enum Execution: Sendable {
        case inline(@Sendable ([UInt8]?, InlineContext) throws -> [UInt8])
        case async(@Sendable ([UInt8]?, RequestContext) async throws -> [UInt8])
    }

    /// One registered method. A class: a request's lookup takes one reference, not a copy of every field.
    final class Entry: Sendable {
        let name: String
        let access: AccessRequirement
        let execution: Execution
        /// Runs under the daemon's admission bounds (``RPCMethod/isExpensive``).
        let isExpensive: Bool
        /// May bind, rebind or unbind the connection's session (``RPCMethod/changesSession``).
        let changesSession: Bool
        /// How the method runs at once on the event loop, given the caller and the loop thread's reader; nil:
        /// never there (``registerRead(_:store:_:)``).
        let immediate: (@Sendable ([UInt8]?, Caller, any ImmediateReader) throws -> [UInt8])?
        /// Where its request count and latency are kept, when requests are measured (set by the dispatcher).
        let instruments: RequestMetrics.Slot?

        init(
            name: String,
            access: AccessRequirement,
            execution: Execution,
            isExpensive: Bool = false,
            changesSession: Bool = false,
            immediate: (@Sendable ([UInt8]?, Caller, any ImmediateReader) throws -> [UInt8])? = nil,
            instruments: RequestMetrics.Slot? = nil
        ) {
            self.name = name
            self.access = access
            self.execution = execution
            self.isExpensive = isExpensive
            self.changesSession = changesSession
            self.immediate = immediate
            self.instruments = instruments
        }

        /// The same method with `instruments`.
        func with(instruments: RequestMetrics.Slot) -> Entry {
            Entry(
                name: self.name,
                access: self.access,
                execution: self.execution,
                isExpensive: self.isExpensive,
                changesSession: self.changesSession,
                immediate: self.immediate,
                instruments: instruments
            )
        }
    }

    /// Gives every method its instruments' slot from `metrics`.
    mutating func attach(_ metrics: RequestMetrics) {
        self.entries = self.entries.mapValues { $0.with(instruments: metrics.slot(for: $0.name)) }
    }

    private(set) var entries: [String: Entry] = [:]

    /// Creates an empty registry.
    public init() {}

    /// The names of all registered methods, sorted.
    public var methodNames: [String] { self.entries.keys.sorted() }

    /// Who may call a method.
    public func access(of method: String) -> AccessRequirement? { self.entries[method]?.access }

    subscript(method: String) -> Entry? { self.entries[method] }

    /// Registers a method that runs as a task and may use storage; who may call it is ``RPCMethod/access``.
    public mutating func register<M: RPCMethod>(
        _ method: M.Type,
        _ body: @escaping @Sendable (M.Params, RequestContext) async throws -> M.Result
    ) {
        precondition(self.entries[M.name] == nil, "\(M.name) registered twice")
        self.entries[M.name] = Entry(
            name: M.name,
            access: M.access,
            execution: .async { params, context in
                let decoded = try Self.checkedParams(M.self, params, caller: context.caller)
                return try RPCCoding.encode(try await body(decoded, context))
            },
            isExpensive: M.isExpensive,
            changesSession: M.changesSession
        )
    }

    /// Registers a read cheap enough to run on the connection's event loop: a few indexed lookups in one
    /// snapshot, such as `object.get` with its ACL check. It runs there at once, on the loop thread's own
    /// read-only connection, when the connection has nothing else in flight (so it never overtakes a call sent
    /// before it) and its session needs no new check; otherwise as a task on the store's readers. `body` sees
    /// one snapshot either way. An answer given at once is kept until the store's next commit (see
    /// `ImmediateReads`), so `body` must depend on nothing but its params, the caller's user and admin right,
    /// and the database (not on the time, for one).
    public mutating func registerRead<M: RPCMethod>(
        _ method: M.Type,
        store: any Store,
        _ body: @escaping @Sendable (M.Params, Caller, any Transaction) throws -> M.Result
    ) {
        precondition(self.entries[M.name] == nil, "\(M.name) registered twice")
        precondition(!M.changesSession && !M.isExpensive, "\(M.name) cannot run as an immediate read")
        self.entries[M.name] = Entry(
            name: M.name,
            access: M.access,
            execution: .async { params, context in
                let decoded = try Self.checkedParams(M.self, params, caller: context.caller)
                let caller = context.caller
                return try RPCCoding.encode(try await store.read { tx in try body(decoded, caller, tx) })
            },
            immediate: { params, caller, reader in
                let decoded = try Self.checkedParams(M.self, params, caller: caller)
                return try RPCCoding.encode(try reader.read { tx in try body(decoded, caller, tx) })
            }
        )
    }

    /// Registers a cheap method that runs inline on the event loop; open to anyone (``RPCMethod/access`` must
    /// be `anyone`).
    public mutating func registerInline<M: RPCMethod>(
        _ method: M.Type,
        _ body: @escaping @Sendable (M.Params, InlineContext) throws -> M.Result
    ) {
        precondition(self.entries[M.name] == nil, "\(M.name) registered twice")
        precondition(M.access == .anyone && !M.changesSession, "\(M.name) cannot run inline")
        self.entries[M.name] = Entry(
            name: M.name,
            access: .anyone,
            execution: .inline { params, context in
                let decoded = try Self.decodeParams(M.self, params)
                return try RPCCoding.encode(try body(decoded, context))
            }
        )
    }

    /// Registers an inline method whose result is fixed JSON text, encoded once (e.g. `system.ping`).
    public mutating func registerConstant<M: RPCMethod>(_ method: M.Type, json: [UInt8]) {
        precondition(self.entries[M.name] == nil, "\(M.name) registered twice")
        precondition(M.access == .anyone && !M.changesSession, "\(M.name) cannot run inline")
        self.entries[M.name] = Entry(name: M.name, access: .anyone, execution: .inline { _, _ in json })
    }

    /// Registers an inline method whose result is fixed JSON text made on first use by `json` (which should
    /// read a lazily initialized constant, such as a `static let`).
    public mutating func registerConstant<M: RPCMethod>(_ method: M.Type, json: @escaping @Sendable () -> [UInt8]) {
        precondition(self.entries[M.name] == nil, "\(M.name) registered twice")
        precondition(M.access == .anyone && !M.changesSession, "\(M.name) cannot run inline")
        self.entries[M.name] = Entry(name: M.name, access: .anyone, execution: .inline { _, _ in json() })
    }

    // MARK: - Params

    /// The most items a list-valued param (an array or an object) may hold unless its method declares
    /// another limit in ``RPCMethod/itemLimits``.
    public static let defaultItemLimit = OpenRPCContract.defaultItemLimit

    /// A method's params, checked against its declared limits and decoded.
    static func checkedParams<M: RPCMethod>(_ method: M.Type, _ params: [UInt8]?, caller: Caller) throws -> M.Params {
        try Self.checkDeclaredLimits(M.self, params, caller: caller)
        return try Self.decodeParams(M.self, params)
    }

    /// Enforces what the method type declares about its params, on the raw params before decoding: item
    /// limits of list-valued params (`TOO_MANY_ITEMS`) and admin-only params (`PERMISSION_DENIED`).
    static func checkDeclaredLimits<M: RPCMethod>(_ method: M.Type, _ params: [UInt8]?, caller: Caller) throws {
        guard let params, params.count > 2 else { return }
        // Most params hold no list and no admin-only param: skip the scan (a byte search) for them.
        if M.adminOnlyParameters.isEmpty,
            !params.dropFirst().contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") })
        {
            return
        }
        try params.withUnsafeBytes { bytes in
            let scanner = JSONScanner(maximumDepth: Int.max)
            guard let top = try? scanner.scan(bytes) else { return }
            let members: [(key: String, value: JSONScanner.Value)]
            switch top.kind {
            case .object:
                members = scanner.members(of: top, in: bytes).map { ($0.key, $0.value) }
            case .array:
                members = zip(M.positionalParameters, scanner.elements(of: top, in: bytes)).map { ($0, $1) }
            default:
                return
            }
            for (key, value) in members {
                if value.kind == .array || value.kind == .object {
                    let limit = M.itemLimits[key] ?? Self.defaultItemLimit
                    let count =
                        value.kind == .array ? scanner.elements(of: value, in: bytes).count : scanner.members(of: value, in: bytes).count
                    guard count <= limit else {
                        throw RPCError(
                            code: .invalidParams,
                            message: "Invalid params: \(key) holds \(count) items; at most \(limit)",
                            reason: ErrorReason.tooManyItems,
                            field: key,
                            extra: ["limit": .int(Int64(limit))]
                        )
                    }
                }
                if !caller.isAdmin, M.adminOnlyParameters.contains(key), value.kind != .null {
                    let own = caller.session.map { $0.user.id }
                    let named = value.kind == .string ? try? JSONScanner.string(value, in: bytes) : nil
                    guard let own, named == own else {
                        throw GuildError(
                            .permissionDenied,
                            "only an admin may set \(key) to anything but the caller's own user id",
                            field: key
                        )
                    }
                }
            }
        }
    }

    /// Decodes a method's params: by name from an object; from an array by position where the method names
    /// its positions; an absent `params` is `{}`.
    static func decodeParams<M: RPCMethod>(_ method: M.Type, _ params: [UInt8]?) throws -> M.Params {
        if M.Params.self == NoParams.self, let none = NoParams() as? M.Params {
            return none
        }
        guard let params else {
            return try RPCCoding.decodeParams(M.Params.self, from: Array("{}".utf8))
        }
        if params.first == UInt8(ascii: "["), !M.positionalParameters.isEmpty {
            return try RPCCoding.decodeParams(M.Params.self, from: try Self.named(params, M.positionalParameters))
        }
        if params.first == UInt8(ascii: "["), M.Params.self != [Double].self, M.Params.self != JSONValue.self {
            throw RPCError.invalidParams("\(M.name) takes its params by name, as an object", field: nil)
        }
        return try RPCCoding.decodeParams(M.Params.self, from: params)
    }

    /// Turns by-position params into a by-name object, keeping each value's exact JSON text.
    private static func named(_ array: [UInt8], _ names: [String]) throws -> [UInt8] {
        try array.withUnsafeBytes { bytes in
            let scanner = JSONScanner(maximumDepth: Int.max)
            guard let top = try? scanner.scan(bytes) else { throw RPCError.invalidParams("unreadable params", field: nil) }
            let elements = scanner.elements(of: top, in: bytes)
            guard elements.count <= names.count else {
                throw RPCError.invalidParams(
                    "at most \(names.count) positional params (\(names.joined(separator: ", ")))",
                    field: nil
                )
            }
            var object: [UInt8] = [UInt8(ascii: "{")]
            for (index, element) in elements.enumerated() {
                if index > 0 { object.append(UInt8(ascii: ",")) }
                JSONText.appendString(names[index], to: &object)
                object.append(UInt8(ascii: ":"))
                object.append(contentsOf: bytes[element.range])
            }
            object.append(UInt8(ascii: "}"))
            return object
        }
    }
}
