/// The process at the other end of a connection, as the kernel reports it (`SO_PEERCRED`).
public struct PeerCredentials: Sendable, Hashable {
    public var uid: UInt32
    public var gid: UInt32
    public var pid: Int32

    /// Creates credentials.
    public init(uid: UInt32, gid: UInt32, pid: Int32) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
    }
}

/// Who is making a call: the peer process, whether it has admin rights, and the session bound to the
/// connection (if any).
public struct Caller: Sendable {
    /// The connecting process.
    public var peer: PeerCredentials
    /// Admin rights, from the peer's uid only (root or a configured admin uid); never from anything sent.
    public var isAdmin: Bool
    /// The bound user session, checked live on every call that uses it (nil when a thing is bound).
    public var session: ResolvedSession?
    /// The bound thing, when the connection authenticated with a thing's token: a principal of its own,
    /// never a user, so user-only calls refuse it.
    public var thingID: String?
    /// The installation the connection is bound to (`installation.register`), if any: where a pseudo user's
    /// command results go.
    public var installationID: String?

    /// Creates a caller.
    public init(peer: PeerCredentials, isAdmin: Bool, session: ResolvedSession? = nil) {
        self.peer = peer
        self.isAdmin = isAdmin
        self.bind(session)
    }

    /// Binds a resolved session: a user's as ``session``, a thing's as ``thingID``.
    public mutating func bind(_ session: ResolvedSession?) {
        if let session, session.isThing {
            self.session = nil
            self.thingID = session.user.id
        } else {
            self.session = session
            self.thingID = nil
        }
    }

    /// The bound principal's id: the user's or the thing's (nil for none).
    public var principalID: String? { self.session?.user.id ?? self.thingID }

    /// The bound user's id, or `unauthorized` (`permissionDenied` for a thing, which is not a user).
    public func requireUserID() throws(GuildError) -> String {
        if let thingID = self.thingID {
            throw GuildError(.permissionDenied, "the connection is bound to thing \(thingID); this call is for users")
        }
        guard let session = self.session else {
            throw GuildError(.unauthorized, "this call needs a session: call session.authenticate or user.login first")
        }
        return session.user.id
    }

    /// The user a call targets: `requested` if given (the caller themself, or anyone for an admin),
    /// else the caller's own user.
    public func target(_ requested: String?) throws(GuildError) -> String {
        if let requested {
            if self.isAdmin || self.session?.user.id == requested { return requested }
            if self.session == nil && self.thingID == nil {
                throw GuildError(.unauthorized, "this call needs a session or admin rights")
            }
            throw GuildError(.permissionDenied, "only the user themself or an admin may do this")
        }
        return try self.requireUserID()
    }
}
