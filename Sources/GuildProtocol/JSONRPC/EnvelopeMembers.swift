import GuildJSON

/// The members of a JSON-RPC message object that requests and replies are read from, located while the line
/// is validated (or walked in a batch entry); the last of a repeated key counts.
struct EnvelopeMembers {
    var version: JSONScanner.Value?
    var id: JSONScanner.Value?
    var method: JSONScanner.Value?
    var params: JSONScanner.Value?
    var result: JSONScanner.Value?
    var error: JSONScanner.Value?

    /// Records `value` if `key` is one of the envelope's keys. Keys are compared as bytes; a key written with
    /// escapes is compared by what it says (`"\u0069d"` is `id`).
    mutating func take(_ key: JSONScanner.Value, _ value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard !key.hasEscapes else {
            switch try? JSONScanner.string(key, in: bytes) {
            case "jsonrpc": self.version = value
            case "id": self.id = value
            case "method": self.method = value
            case "params": self.params = value
            case "result": self.result = value
            case "error": self.error = value
            default: break
            }
            return
        }
        switch key.range.count - 2 {
        case 2: if JSONScanner.string(key, in: bytes, is: "id") { self.id = value }
        case 5: if JSONScanner.string(key, in: bytes, is: "error") { self.error = value }
        case 6:
            if JSONScanner.string(key, in: bytes, is: "method") {
                self.method = value
            } else if JSONScanner.string(key, in: bytes, is: "params") {
                self.params = value
            } else if JSONScanner.string(key, in: bytes, is: "result") {
                self.result = value
            }
        case 7: if JSONScanner.string(key, in: bytes, is: "jsonrpc") { self.version = value }
        default: break
        }
    }
}
