import GuildClient
import GuildProtocol

/// A user with a connection of its own: a client whose session is that user's.
public struct TestUser: Sendable {
    /// The connection, signed in as the user.
    public let client: GuildClient
    /// The user's id.
    public let id: String
    /// The user's access token.
    public let token: String

    /// A user of the given fields (e.g. a session made otherwise).
    public init(client: GuildClient, id: String, token: String) {
        self.client = client
        self.id = id
        self.token = token
    }

    /// Connects to `socket` and registers a pseudo user named `displayName` on that connection.
    public static func registerPseudo(_ socket: String, displayName: String) async throws -> TestUser {
        let client = try await GuildClient.connect(path: socket)
        let auth = try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: displayName))
        return TestUser(client: client, id: auth.user.userID, token: auth.accessToken)
    }
}
