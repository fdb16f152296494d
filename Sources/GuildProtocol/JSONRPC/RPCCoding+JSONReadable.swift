import GuildJSON

extension RPCCoding {
    /// Reads a ``JSONReadable`` type from JSON text; nil when the text is not valid JSON or the type's fast
    /// path does not handle it.
    ///
    /// The work is done by ``GuildJSON/JSONReadable/read(in:)`` on the opened type, with one cast to `T` at the
    /// end: callers that are not specialised for `T` (the daemon's params decoding, GuildClient's single calls)
    /// would otherwise look up the metadata of every type built from `T` (`T?`, closures returning it) per call.
    static func read<T>(_ type: T.Type, from bytes: some Collection<UInt8>) -> T? {
        guard let readable = type as? any JSONReadable.Type else { return nil }
        let value: (any JSONReadable)? =
            bytes.withContiguousStorageIfAvailable { readable.read(in: UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { readable.read(in: $0) }
        guard let value else { return nil }
        return value as? T
    }
}
