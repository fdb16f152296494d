import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// `session.*`: binding a token to the connection, asking who it is, logging out.
    mutating func registerSessionMethods(_ users: UserService) {
        self.register(SessionMethods.Authenticate.self) { params, context in
            let epoch = users.generations.epoch
            let session = try await users.resolve(accessToken: params.accessToken)
            // A thing's connection is answered once the thing is recorded online (for every host).
            await context.bind(session, checkedSince: epoch)?.value
            return SessionInfo(context.caller, session: session)
        }
        self.register(SessionMethods.WhoAmI.self) { _, context in
            // The bound session is checked cheaply on each call; its profile is read fresh here.
            if context.caller.thingID != nil { return SessionInfo(context.caller, session: context.connection.session?.session) }
            guard var session = context.caller.session else { return SessionInfo(context.caller, session: nil) }
            session.user = try await users.get(caller: context.caller, userID: nil).user
            return SessionInfo(context.caller, session: session)
        }
        self.register(SessionMethods.Logout.self) { _, context in
            try await users.logout(caller: context.caller)
            context.bind(nil)
            return true
        }
    }
}
