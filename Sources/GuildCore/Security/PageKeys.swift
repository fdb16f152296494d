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

    /// The largest key accepted, in characters: a frame's worth (a sorted query's position holds the sort value,
    /// which may be a string of up to an object's 65,534 characters, escaped).
    public static let maximumLength = 1 << 20
    /// Positions are padded to a multiple of this many bytes before sealing, so a key's length says little of
    /// the value in it.
    static let paddingBlock = 64

    /// The daemon's keys: one random 256-bit key for the life of the process.
    public static let process = PageKeys()

    /// Keys sealed with `key` (random when not given; 256 bits).
    public init(key: SymmetricKey = SymmetricKey(size: .bits256)) {
        precondition(key.bitCount == 256, "ChaCha20-Poly1305 takes a 256-bit key")
        self.key = key
    }

    /// `position` sealed for `binding`, as base64url text without padding.
    public func seal(_ position: [UInt8], for binding: PageBinding) -> String {
        // The position's length (4 bytes, big-endian), the position, zeros to the next block.
        let count = UInt32(position.count)
        var padded: [UInt8] = [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        padded += position
        padded += [UInt8](repeating: 0, count: (Self.paddingBlock - padded.count % Self.paddingBlock) % Self.paddingBlock)
        // Sealing fails only for a key of the wrong size, which `init` refuses.
        let box = try! ChaChaPoly.seal(padded, using: self.key, authenticating: binding.bytes)
        return Base64URL.encode(box.combined)
    }

    /// The position sealed in `text` for `binding`; `invalidInput` (`field: paginationKey`) for any text this
    /// daemon did not seal for this binding.
    public func open(_ text: String, for binding: PageBinding) throws(GuildError) -> [UInt8] {
        let refused = GuildError.invalidInput(
            "not a paginationKey this daemon handed out for this caller and query",
            field: "paginationKey"
        )
        guard text.utf8.count <= Self.maximumLength else { throw refused }
        guard let data = Base64URL.decode(text), let box = try? ChaChaPoly.SealedBox(combined: data),
            let padded = try? Array(ChaChaPoly.open(box, using: self.key, authenticating: binding.bytes)),
            padded.count >= 4
        else { throw refused }
        let count = Int(padded[0]) << 24 | Int(padded[1]) << 16 | Int(padded[2]) << 8 | Int(padded[3])
        guard count <= padded.count - 4 else { throw refused }
        return Array(padded[4..<(4 + count)])
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
