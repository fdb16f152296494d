import GuildJSON

extension RPCCoding {
    /// Reads a ``JSONReadable`` type from JSON text; nil when the text is not valid JSON or the type's fast
    /// path does not handle it.
    static func read<T>(_ type: T.Type, from bytes: some Collection<UInt8>) -> T? {
        guard let readable = type as? any JSONReadable.Type else { return nil }
        func scan(_ buffer: UnsafeRawBufferPointer) -> T? {
            guard let top = try? JSONScanner(maximumDepth: 512).scan(buffer) else { return nil }
            return readable.init(json: top, in: buffer) as? T
        }
        if let result = bytes.withContiguousStorageIfAvailable({ scan(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes(scan)
    }
}
