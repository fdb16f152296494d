import Foundation
import GuildJSON
import GuildProtocol
import Testing

/// Encodes `value` and returns the top-level object's keys.
private func keys(of value: some Encodable) throws -> Set<String> {
    let object = try JSONSerialization.jsonObject(with: Data(try RPCCoding.encode(value))) as? [String: Any]
    return Set(try #require(object).keys)
}

private func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
    try RPCCoding.decode(T.self, from: try RPCCoding.encode(value))
}

struct MethodsTests {
    @Test
    func methodNamesAreTheWireNames() {
        let names: [(String, String)] = [
            (SystemMethods.Ping.name, "system.ping"),
            (SystemMethods.Status.name, "system.status"),
            (SystemMethods.Discover.name, "rpc.discover"),
            (SessionMethods.Authenticate.name, "session.authenticate"),
            (SessionMethods.WhoAmI.name, "session.whoami"),
            (SessionMethods.Logout.name, "session.logout"),
            (UserMethods.Register.name, "user.register"),
            (UserMethods.RegisterPseudo.name, "user.registerPseudo"),
            (UserMethods.Login.name, "user.login"),
            (UserMethods.Refresh.name, "user.refresh"),
            (UserMethods.PutIdentity.name, "user.putIdentity"),
            (UserMethods.ChangePassword.name, "user.changePassword"),
            (UserMethods.Get.name, "user.get"),
            (UserMethods.Update.name, "user.update"),
            (UserMethods.Delete.name, "user.delete"),
            (ConformanceMethods.Subtract.name, "subtract"),
            (ConformanceMethods.Sum.name, "sum"),
            (ConformanceMethods.GetData.name, "get_data"),
            (ConformanceMethods.Update.name, "update"),
            (ConformanceMethods.NotifyHello.name, "notify_hello"),
            (ConformanceMethods.NotifySum.name, "notify_sum"),
        ]
        for (actual, expected) in names {
            #expect(actual == expected)
        }
        #expect(Set(names.map(\.0)).count == names.count)
    }

    @Test
    func onlySubtractTakesPositionalParameters() {
        #expect(ConformanceMethods.Subtract.positionalParameters == ["minuend", "subtrahend"])
        #expect(SystemMethods.Ping.positionalParameters.isEmpty)
        #expect(UserMethods.Register.positionalParameters.isEmpty)
    }

    @Test
    func registerParamsRoundTripWithEveryField() throws {
        let params = UserMethods.Register.Params(
            username: "ada",
            email: "ada@example.com",
            phone: "+15551234567",
            password: "pw\n\"",
            displayName: "Ada",
            fields: ["age": 36, "tags": ["x"], "meta": ["k": nil]]
        )
        #expect(try roundTrip(params) == params)
        #expect(try keys(of: params) == ["username", "email", "phone", "password", "displayName", "fields"])
    }

    @Test
    func registerParamsOmitNilOptionals() throws {
        let params = UserMethods.Register.Params(password: "pw")
        #expect(String(decoding: try RPCCoding.encode(params), as: UTF8.self) == #"{"password":"pw"}"#)
        #expect(try roundTrip(params) == params)
    }

    @Test
    func otherParamsOmitNilOptionals() throws {
        #expect(try keys(of: UserMethods.Login.Params(email: "e", password: "p")) == ["email", "password"])
        #expect(try keys(of: UserMethods.RegisterPseudo.Params()).isEmpty)
        #expect(try keys(of: UserMethods.Get.Params()).isEmpty)
        #expect(try keys(of: UserMethods.Update.Params(fields: ["a": nil])) == ["fields"])
        #expect(try keys(of: UserMethods.Delete.Params(userID: "u")) == ["userID"])
        #expect(try keys(of: UserMethods.PutIdentity.Params(phone: "1", password: "p")) == ["phone", "password"])
    }

    @Test
    func updateParamsKeepExplicitNullFieldValues() throws {
        // A null custom field value means "remove this field", so it must survive encoding.
        let params = UserMethods.Update.Params(fields: ["gone": nil, "kept": 1])
        let text = String(decoding: try RPCCoding.encode(params), as: UTF8.self)
        #expect(text == #"{"fields":{"gone":null,"kept":1}}"#)
        #expect(try roundTrip(params) == params)
    }

    @Test
    func simpleParamsRoundTrip() throws {
        #expect(try roundTrip(UserMethods.Login.Params(username: "u", password: "p")) == .init(username: "u", password: "p"))
        #expect(try roundTrip(UserMethods.Refresh.Params(refreshToken: "r")) == .init(refreshToken: "r"))
        #expect(try roundTrip(UserMethods.ChangePassword.Params(oldPassword: "o", newPassword: "n")) == .init(oldPassword: "o", newPassword: "n"))
        #expect(try roundTrip(SessionMethods.Authenticate.Params(accessToken: "t")) == .init(accessToken: "t"))
        #expect(try roundTrip(ConformanceMethods.Subtract.Params(minuend: 42, subtrahend: 23)) == .init(minuend: 42, subtrahend: 23))
        #expect(try roundTrip(UserMethods.Delete.Result(userID: "u", deleted: true)) == .init(userID: "u", deleted: true))
    }

    @Test
    func noParamsIsAnEmptyObject() throws {
        #expect(String(decoding: try RPCCoding.encode(NoParams()), as: UTF8.self) == "{}")
        #expect(try RPCCoding.decodeParams(NoParams.self, from: Array("{}".utf8)) == NoParams())
        #expect(try RPCCoding.decodeParams(NoParams.self, from: Array("[]".utf8)) == NoParams())
    }

    @Test
    func resultTypesRoundTrip() throws {
        let profile = UserProfile(
            userID: "u1",
            username: "ada",
            displayName: "Ada",
            fields: ["x": 1.5],
            isPseudo: false,
            createdAt: 1_700_000_000_000,
            modifiedAt: 1_700_000_000_001
        )
        #expect(try roundTrip(profile) == profile)
        let minimal = UserProfile(userID: "u2", isPseudo: true, createdAt: 0)
        #expect(try keys(of: minimal) == ["userID", "isPseudo", "createdAt"])

        let auth = AuthResult(user: profile, accessToken: "a", refreshToken: nil, expiresAt: nil)
        #expect(try roundTrip(auth) == auth)
        #expect(try keys(of: auth) == ["user", "accessToken"])

        let session = SessionInfo(user: nil, expiresAt: nil, admin: true, peer: .init(uid: 1000, gid: 1000, pid: 42))
        #expect(try roundTrip(session) == session)
        #expect(try keys(of: session) == ["admin", "peer"])

        let status = SystemStatus(
            version: "0.1.0",
            uptimeSeconds: 1.25,
            activation: .socketActivated,
            connections: 3,
            databasePath: "/var/lib/guild/guild.db",
            pid: 99
        )
        #expect(try roundTrip(status) == status)
        let text = String(decoding: try RPCCoding.encode(status), as: UTF8.self)
        #expect(text.contains(#""activation":"socket-activated""#))
        #expect(text.contains(#""databasePath":"/var/lib/guild/guild.db""#))
    }

    @Test
    func activationUsesTheWireSpelling() throws {
        #expect(SystemStatus.Activation.socketActivated.rawValue == "socket-activated")
        #expect(SystemStatus.Activation.bound.rawValue == "bound")
        #expect(try RPCCoding.decode(SystemStatus.Activation.self, from: Array(#""bound""#.utf8)) == .bound)
    }

    @Test
    func profileDecodesFromTheWireShape() throws {
        let json = #"{"userID":"u","username":"n","isPseudo":false,"createdAt":5,"fields":{"a":[1,{"b":null}]}}"#
        let profile = try RPCCoding.decode(UserProfile.self, from: Array(json.utf8))
        #expect(profile.userID == "u")
        #expect(profile.username == "n")
        #expect(profile.email == nil)
        #expect(profile.fields == ["a": [1, ["b": nil]]])
        #expect(profile.createdAt == 5)
    }
}
