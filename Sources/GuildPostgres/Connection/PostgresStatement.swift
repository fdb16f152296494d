import PostgresNIO

/// SQL text with its bind parameters, built piece by piece, for a statement whose shape depends on the data
/// (postgres-nio's string interpolation serves a statement written whole): each ``bind(_:)`` adds a value and
/// answers its placeholder (`$1`, `$2`, ...), which the caller writes into ``sql`` wherever the value belongs.
struct PostgresStatement {
    /// The statement's text, its placeholders those ``bind(_:)`` answered.
    var sql = ""
    private(set) var binds = PostgresBindings()

    /// Binds `value` (NULL when nil); returns its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value?) -> String {
        self.binds.append(value)
        return "$\(self.binds.count)"
    }

    /// The statement to send.
    var query: PostgresQuery { PostgresQuery(unsafeSQL: self.sql, binds: self.binds) }
}
