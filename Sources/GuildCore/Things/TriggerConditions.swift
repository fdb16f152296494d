import GuildJSON
import Synchronization

/// State conditions compiled once and kept by their stored predicate text: every upload evaluates each of its
/// thing's state triggers, and parsing a predicate and building its clause on every upload cost more than the
/// rest of the upload with 100 triggers on the thing (`guild-bench triggers`, protocol/performance.md). Keyed by
/// content, an entry is never stale: a patched predicate is a new key. Bounded: past ``capacity`` entries the
/// cache starts over.
public final class TriggerConditions: Sendable {
    /// A state predicate ready to evaluate.
    public struct Compiled: Sendable {
        public let clause: ObjectClause
        public let mode: TriggersWhen
    }

    /// How many predicates are kept at most.
    public let capacity: Int
    private let compiled: Mutex<[[UInt8]: Compiled?]> = Mutex([:])

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The compiled condition of each stored predicate, in order; nil for one that is not a state predicate (a
    /// schedule) or that no longer parses.
    public func conditions(of predicates: [[UInt8]]) -> [Compiled?] {
        var found = [Compiled?](repeating: nil, count: predicates.count)
        var missing: [Int] = []
        self.compiled.withLock { cache in
            for (index, predicate) in predicates.enumerated() {
                if let hit = cache[predicate] { found[index] = hit } else { missing.append(index) }
            }
        }
        guard !missing.isEmpty else { return found }
        // Parsed outside the lock: another upload's lookups need not wait for it.
        var parsed: [([UInt8], Compiled?)] = []
        for index in missing {
            let compiled = Self.compile(predicates[index])
            found[index] = compiled
            parsed.append((predicates[index], compiled))
        }
        self.compiled.withLock { cache in
            if cache.count + parsed.count > self.capacity { cache.removeAll(keepingCapacity: true) }
            for (predicate, compiled) in parsed { cache[predicate] = compiled }
        }
        return found
    }

    /// How many predicates are kept now.
    public var count: Int { self.compiled.withLock { $0.count } }

    private static func compile(_ stored: [UInt8]) -> Compiled? {
        guard let json = try? stored.withUnsafeBytes({ try JSONValue(parsing: $0) }),
            let predicate = try? TriggerPredicate(stored: json),
            case .states(let condition, let mode) = predicate,
            let clause = try? ObjectClause(json: condition)
        else { return nil }
        return Compiled(clause: clause, mode: mode)
    }
}
