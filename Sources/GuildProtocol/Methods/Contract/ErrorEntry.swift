/// One error of the catalog (`ErrorReason.sections`): a code, one of its `data.reason` values, what
/// `protocol/errors.md` and `protocol/openrpc.json` say about it, and the domain failure it answers.
///
/// An entry is the error's only declaration. `scripts/gen-contract` derives the rest from it: the `ErrorReason`
/// constant (``name``), the case of the domain's `GuildError.Code` (``domain``), the server's mapping between
/// the two, `protocol/errors.md` and the Python client's constants.
public struct ErrorEntry: Sendable {
    /// The JSON-RPC code (several reasons may share one).
    public var code: ErrorCode
    /// The `data.reason`: UPPER_SNAKE, stable.
    public var reason: String
    /// The domain failure this entry answers, when the rules (not the transport) raise it.
    public var domain: Domain?
    /// One line for a method's `errors` in `protocol/openrpc.json` (needed when a method declares the reason).
    public var summary: String?
    /// When the error is sent: the `when` cell of `protocol/errors.md` (Markdown).
    public var when: String
    /// Members `data` carries besides `reason`.
    public var extra: [String]

    /// Creates an entry.
    public init(
        _ code: ErrorCode,
        _ reason: String,
        domain: Domain? = nil,
        summary: String? = nil,
        when: String,
        extra: [String] = []
    ) {
        self.code = code
        self.reason = reason
        self.domain = domain
        self.summary = summary
        self.when = when
        self.extra = extra
    }

    /// The name of the reason's `ErrorReason` constant: the reason in lowerCamel, `ID` kept upper case
    /// (`GROUP_ID_IN_USE` is `groupIDInUse`).
    public var name: String {
        let words = self.reason.lowercased().split(separator: "_")
        return words.enumerated().map { index, word in
            if index == 0 { return String(word) }
            return word == "id" ? "ID" : word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
    }

    /// The case of `GuildError.Code` an entry answers.
    public var domainCase: String? {
        self.domain.map { $0.name ?? self.name }
    }

    /// A failure of the domain's rules that this entry answers on the wire: a case of `GuildError.Code`.
    public struct Domain: Sendable {
        /// What the failure means, for the case's doc comment.
        public var meaning: String
        /// The case's name when it is not the reason constant's (``ErrorEntry/name``).
        public var name: String?

        /// A domain failure meaning `meaning`, whose case is named `name`, or as the reason constant is.
        public static func meaning(_ meaning: String, case name: String? = nil) -> Domain {
            Domain(meaning: meaning, name: name)
        }
    }
}
