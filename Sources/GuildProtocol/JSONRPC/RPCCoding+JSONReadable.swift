import GuildJSON

extension RPCCoding {
    /// Reads a ``JSONReadable`` type from JSON text; nil when the text is not valid JSON or the type's fast
    /// path does not handle it.
    ///
    /// The work is done by the non-generic ``read(_:in:)``, with one cast to `T` at the end: callers such as
    /// GuildClient's are not specialised for `T`, and generic code there looks up the metadata of every type it
    /// builds from `T` (`T?`, closures returning it) on every call (a tenth of a pipelined call's CPU).
    static func read<T>(_ type: T.Type, from bytes: some Collection<UInt8>) -> T? {
        guard let readable = type as? any JSONReadable.Type else { return nil }
        let value =
            bytes.withContiguousStorageIfAvailable { Self.read(readable, in: UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { Self.read(readable, in: $0) }
        guard let value else { return nil }
        return value as? T
    }

    /// Reads `readable` from JSON text; nil when the text is not valid JSON or the type's fast path does not
    /// handle it. Non-generic: code that decodes many values of a type it is not specialised for asks
    /// `as? any JSONReadable.Type` once and reads each value here.
    public static func read(_ readable: any JSONReadable.Type, in buffer: UnsafeRawBufferPointer) -> (any JSONReadable)? {
        readable.read(in: buffer)
    }
}
