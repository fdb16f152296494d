import Crypto
import Foundation
import _CryptoExtras

/// Hashes and verifies passwords with scrypt, storing them as PHC-style strings
/// (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`), so a later change of cost still verifies older hashes.
public struct PasswordHasher: Sendable {
    /// log2 of scrypt's CPU/memory cost N. 15 means N = 32768 (32 MiB of memory per hash with r = 8).
    public var logN: Int
    /// scrypt's block size r.
    public var blockSize: Int
    /// scrypt's parallelism p.
    public var parallelism: Int

    /// Creates a hasher. The default cost (N = 2^15, r = 8, p = 1) takes tens of milliseconds.
    public init(logN: Int = 15, blockSize: Int = 8, parallelism: Int = 1) {
        precondition((1...20).contains(logN), "scrypt log2(N) must be between 1 and 20")
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// Hashes a password with a fresh 16-byte salt.
    public func makeHash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let key = try Self.derive(password, salt: salt, logN: self.logN, r: self.blockSize, p: self.parallelism)
        return "$scrypt$ln=\(self.logN),r=\(self.blockSize),p=\(self.parallelism)$"
            + Data(salt).base64EncodedString() + "$" + Data(key).base64EncodedString()
    }

    /// Checks a password against a stored hash, in constant time for the comparison.
    public func check(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: true)
        guard parts.count == 4, parts[0] == "scrypt",
            let salt = Data(base64Encoded: String(parts[2])),
            let expected = Data(base64Encoded: String(parts[3]))
        else { return false }
        var parameters: [String: Int] = [:]
        for item in parts[1].split(separator: ",") {
            let pair = item.split(separator: "=")
            if pair.count == 2, let value = Int(pair[1]) { parameters[String(pair[0])] = value }
        }
        guard let logN = parameters["ln"], let r = parameters["r"], let p = parameters["p"], (1...20).contains(logN),
            let key = try? Self.derive(password, salt: Array(salt), logN: logN, r: r, p: p, count: expected.count)
        else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(key, expected) { difference |= a ^ b }
        return difference == 0 && key.count == expected.count
    }

    private static func derive(
        _ password: String,
        salt: [UInt8],
        logN: Int,
        r: Int,
        p: Int,
        count: Int = 32
    ) throws
        -> [UInt8]
    {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8),
            salt: salt,
            outputByteCount: count,
            rounds: 1 << logN,
            blockSize: r,
            parallelism: p
        )
        return key.withUnsafeBytes { Array($0) }
    }
}
