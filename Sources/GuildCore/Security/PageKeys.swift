import Crypto
import Foundation

/// Seals the paging keys the daemon hands out (`nextPaginationKey`), so that a key reveals nothing and only the
/// caller and the query it was made for can use it.
///
/// A page key holds a position: where a walk stopped, which for a sorted query is the sort value of the last
/// object scanned, even one the caller may not read. Sealed with ChaCha20-Poly1305 under a key the daemon keeps
/// in memory, the position is unreadable, and the query the key belongs to (the caller, the bucket or thing, the
/// clause and order: the `binding`) is authenticated with it, so a key that was tampered with, made up, handed
/// to another caller, replayed against another query or made by an earlier run of the daemon (the key is new
/// with every start) fails to open: `INVALID_INPUT_DATA` with `field: paginationKey`.
public struct PageKeys: Sendable {
    private let key: SymmetricKey

    /// The largest key accepted, in characters: a sealed position is well under 200.
    public static let maximumLength = 1024

    /// The daemon's keys: one random 256-bit key for the life of the process.
    public static let process = PageKeys()

    /// Keys sealed with `key` (random when not given).
    public init(key: SymmetricKey = SymmetricKey(size: .bits256)) {
        self.key = key
    }

    /// `position` sealed for `binding`, as base64url text without padding.
    public func seal(_ position: [UInt8], for binding: PageBinding) -> String {
        // Sealing fails only for a key of the wrong size, which `init` never makes.
        let box = try! ChaChaPoly.seal(position, using: self.key, authenticating: binding.bytes)
        return Data(box.combined).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The position sealed in `text` for `binding`; `invalidInput` (`field: paginationKey`) for any text this
    /// daemon did not seal for this binding.
    public func open(_ text: String, for binding: PageBinding) throws(GuildError) -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.utf8.count <= Self.maximumLength, let data = Data(base64Encoded: base64),
            let box = try? ChaChaPoly.SealedBox(combined: data),
            let position = try? ChaChaPoly.open(box, using: self.key, authenticating: binding.bytes)
        else {
            throw .invalidInput(
                "not a paginationKey this daemon handed out for this caller and query",
                field: "paginationKey"
            )
        }
        return Array(position)
    }
}

/// What a page key is bound to: the method, the caller and every parameter that shapes the walk.
public struct PageBinding: Sendable {
    fileprivate let bytes: [UInt8]

    /// A binding of `method` for `caller` and the query's `parts` (each written in full, so no two different
    /// queries share a binding).
    public init(_ method: String, caller: Caller, _ parts: [String]) {
        var text = method + "\u{0}" + Self.principal(caller)
        for part in parts { text += "\u{0}\(part.utf8.count):" + part }
        self.bytes = Array(text.utf8)
    }

    /// Who the key is for: the bound user or thing, or the peer's uid for a connection with neither.
    private static func principal(_ caller: Caller) -> String {
        if let thingID = caller.thingID { return "thing:" + thingID }
        if let userID = caller.session?.user.id { return "user:" + userID }
        return "uid:\(caller.peer.uid)"
    }
}
