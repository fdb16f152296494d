import GuildCore
import GuildProtocol

extension UserProfile {
    /// The wire profile of a user: everything for the user themself and admins, the public part for others.
    init(_ user: User, full: Bool = true) {
        self.init(
            userID: user.id,
            username: user.username,
            email: full ? user.email : nil,
            phone: full ? user.phone : nil,
            displayName: user.displayName,
            fields: full ? user.fields : nil,
            isPseudo: user.isPseudo,
            createdAt: user.createdAt,
            modifiedAt: full ? user.modifiedAt : nil
        )
    }
}

extension AuthResult {
    init(_ user: User, _ session: IssuedSession) {
        self.init(
            user: UserProfile(user),
            accessToken: session.accessToken.text,
            refreshToken: session.refreshToken?.text,
            expiresAt: session.expiresAt
        )
    }
}

extension ResolvedSession {
    init(_ user: User, _ session: IssuedSession) {
        self.init(user: user, tokenHash: session.accessToken.hash, expiresAt: session.expiresAt)
    }
}

extension SessionInfo {
    init(_ caller: Caller, session: ResolvedSession?) {
        let thing = session?.isThing == true ? session : nil
        self.init(
            user: thing == nil ? session.map { UserProfile($0.user) } : nil,
            thingID: thing?.user.id,
            vendorThingID: thing?.user.username,
            expiresAt: session?.expiresAt,
            admin: caller.isAdmin,
            peer: Peer(uid: caller.peer.uid, gid: caller.peer.gid, pid: caller.peer.pid)
        )
    }
}
