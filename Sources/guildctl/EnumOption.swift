import ArgumentParser
import GuildProtocol

/// The value of an enumerated option (`--type`, `--role`, ...), in any letter case as the daemon accepts it;
/// a usage error naming the choices for any other text.
func wireChoice<E: WireEnum>(_ text: String, _ name: String) throws -> E {
    guard let value = E(lenient: text) else {
        throw ValidationError("\(name) must be one of \(E.choices)")
    }
    return value
}

/// The value of an optional enumerated option; nil when it is absent.
func wireChoice<E: WireEnum>(_ text: String?, _ name: String) throws -> E? {
    try text.map { try wireChoice($0, name) }
}
