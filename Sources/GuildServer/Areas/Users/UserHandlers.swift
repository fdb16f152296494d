import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// `user.*`: registration, login, tokens and profiles.
    mutating func registerUserMethods(_ users: UserService) {
        self.register(UserMethods.Register.self) { params, context in
            let (user, session) = try await users.register(
                identity: LoginIdentity(username: params.username, email: params.email, phone: params.phone),
                password: params.password,
                displayName: params.displayName,
                fields: params.fields
            )
            context.bind(ResolvedSession(user, session))
            return AuthResult(user, session)
        }
        self.register(UserMethods.RegisterPseudo.self) { params, context in
            let (user, session) = try await users.registerPseudo(displayName: params.displayName, fields: params.fields)
            context.bind(ResolvedSession(user, session))
            return AuthResult(user, session)
        }
        self.register(UserMethods.Login.self) { params, context in
            let (user, session) = try await users.login(
                identity: LoginIdentity(username: params.username, email: params.email, phone: params.phone),
                password: params.password
            )
            context.bind(ResolvedSession(user, session))
            return AuthResult(user, session)
        }
        self.register(UserMethods.Refresh.self) { params, context in
            let (user, session) = try await users.refresh(refreshToken: params.refreshToken)
            context.bind(ResolvedSession(user, session))
            return AuthResult(user, session)
        }
        self.register(UserMethods.PutIdentity.self) { params, context in
            let user = try await users.putIdentity(
                caller: context.caller,
                identity: LoginIdentity(username: params.username, email: params.email, phone: params.phone),
                password: params.password
            )
            if let session = context.caller.session {
                context.bind(ResolvedSession(user: user, tokenHash: session.tokenHash, expiresAt: session.expiresAt))
            }
            return UserProfile(user)
        }
        self.register(UserMethods.ChangePassword.self) { params, context in
            let (user, session) = try await users.changePassword(
                caller: context.caller,
                oldPassword: params.oldPassword,
                newPassword: params.newPassword
            )
            context.bind(ResolvedSession(user, session))
            return AuthResult(user, session)
        }
        self.register(UserMethods.Get.self) { params, context in
            let (user, full) = try await users.get(caller: context.caller, userID: params.userID)
            return UserProfile(user, full: full)
        }
        self.register(UserMethods.Update.self) { params, context in
            let user = try await users.update(
                caller: context.caller,
                userID: params.userID,
                patch: UserPatch(
                    displayName: params.displayName,
                    email: params.email,
                    phone: params.phone,
                    fields: params.fields
                )
            )
            return UserProfile(user)
        }
        self.register(UserMethods.Delete.self) { params, context in
            let deleted = try await users.delete(caller: context.caller, userID: params.userID)
            if context.caller.session?.user.id == deleted { context.bind(nil) }
            return UserMethods.Delete.Result(userID: deleted, deleted: true)
        }
    }
}
