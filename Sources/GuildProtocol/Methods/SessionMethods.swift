/// `session.*`: binding an access token to the connection, and asking who the connection is.
public enum SessionMethods: Sendable {
    /// `session.authenticate`: binds an access token to this connection; later calls act as its user.
    public enum Authenticate: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var accessToken: String
            public init(accessToken: String) {
                self.accessToken = accessToken
            }
        }
        public typealias Result = SessionInfo
        public static let name = "session.authenticate"
    }

    /// `session.whoami`: the bound user (if any), admin rights and the peer credentials.
    public enum WhoAmI: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = SessionInfo
        public static let name = "session.whoami"
    }

    /// `session.logout`: revokes the bound access token (and its refresh token) and unbinds the connection.
    public enum Logout: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = Bool
        public static let name = "session.logout"
    }
}
