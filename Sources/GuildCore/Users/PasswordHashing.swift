/// Password hashing as the service needs it; the daemon runs it off the request threads.
public protocol PasswordHashing: Sendable {
    /// Hashes a password.
    func hash(_ password: String) async throws -> String
    /// Checks a password against a stored hash.
    func verify(_ password: String, against stored: String) async -> Bool
}

extension PasswordHasher: PasswordHashing {
    public func hash(_ password: String) async throws -> String {
        try self.makeHash(password)
    }

    public func verify(_ password: String, against stored: String) async -> Bool {
        self.check(password, against: stored)
    }
}
