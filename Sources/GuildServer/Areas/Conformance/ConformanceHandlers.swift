import GuildJSON
import GuildProtocol

extension MethodRegistry {
    /// The JSON-RPC 2.0 specification's example methods, so its examples run verbatim.
    mutating func registerConformanceMethods() {
        self.registerInline(ConformanceMethods.Subtract.self) { params, _ in
            try Self.number(params.minuend - params.subtrahend)
        }
        self.registerInline(ConformanceMethods.Sum.self) { params, _ in
            try Self.number(params.reduce(0, +))
        }
        self.registerConstant(ConformanceMethods.GetData.self, json: Array(#"["hello",5]"#.utf8))
        self.registerConstant(ConformanceMethods.Update.self, json: Array("null".utf8))
        self.registerConstant(ConformanceMethods.NotifyHello.self, json: Array("null".utf8))
        self.registerConstant(ConformanceMethods.NotifySum.self, json: Array("null".utf8))
    }

    /// Integral results as integers (`19`, not `19.0`), as the specification shows them. A result JSON cannot
    /// hold (an overflow to infinity, or NaN) is an error, never `null`.
    private static func number(_ value: Double) throws(RPCError) -> JSONValue {
        guard value.isFinite else {
            throw RPCError(
                code: .invalidParams,
                message: "the result is not a finite number (\(value)), which JSON cannot hold",
                reason: ErrorReason.numberOutOfRange
            )
        }
        if value.rounded() == value, abs(value) < 9.0e15 { return .int(Int64(value)) }
        return .double(value)
    }
}
