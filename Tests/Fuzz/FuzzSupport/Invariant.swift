import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reports a broken invariant and aborts, which libFuzzer records as a crash with the input that caused it.
public enum Invariant {
    /// Fails with `message` (and the offending bytes, when given) unless `condition` holds.
    public static func check(
        _ condition: @autoclosure () -> Bool,
        _ message: @autoclosure () -> String,
        bytes: [UInt8]? = nil
    ) {
        guard !condition() else { return }
        Self.fail(message(), bytes: bytes)
    }

    /// Prints `message` to standard error and aborts.
    public static func fail(_ message: String, bytes: [UInt8]? = nil) -> Never {
        var text = "\n==== INVARIANT BROKEN: \(message)\n"
        if let bytes {
            text += "     bytes (\(bytes.count)): \(String(decoding: bytes.prefix(400), as: UTF8.self).debugDescription)\n"
        }
        var output = Array(text.utf8)
        _ = write(2, &output, output.count)
        abort()
    }

    /// Whether `GUILD_FUZZ_SKIP` (a comma-separated list) names `check`, to explore past a known failure locally.
    /// Reports a check that failed but is skipped (`GUILD_FUZZ_SKIP`), on standard error.
    public static func warn(_ message: String) {
        FileHandle.standardError.write(Data("==== SKIPPED CHECK: \(message)\n".utf8))
    }

    public static func skipped(_ check: String) -> Bool {
        guard let value = getenv("GUILD_FUZZ_SKIP") else { return false }
        return String(cString: value).split(separator: ",").contains { $0 == check }
    }
}
