import Foundation
import GuildJSON
import GuildProtocol
import Testing

/// Hand-written readers and writers of the profile path must agree with JSONDecoder and JSONEncoder.
struct JSONReadableTests {
    static let profiles = [
        UserProfile(userID: "u1", isPseudo: true, createdAt: 1),
        UserProfile(
            userID: "u2",
            username: "ada\"/\\",
            email: "a@b.c",
            phone: "+1",
            displayName: "Ada ünï\n\u{1}",
            fields: [:],
            isPseudo: false,
            createdAt: -5,
            modifiedAt: 1_795_348_702_624
        ),
        UserProfile(
            userID: "u3",
            displayName: "x",
            fields: ["a": 1, "b": [true, nil, "s"], "c": ["d": 2.5], "e": 1e-7],
            isPseudo: false,
            createdAt: Int64.max,
            modifiedAt: Int64.min
        ),
    ]

    func encoder(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    func foundation<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }

    @Test func profilesWriteWhatJSONEncoderWrites() throws {
        for profile in Self.profiles {
            let written = try RPCCoding.encode(profile)
            #expect(try self.foundation(JSONValue.self, written) == (try self.foundation(JSONValue.self, try self.encoder(profile))))
            #expect(try self.foundation(UserProfile.self, written) == profile)
            #expect(try RPCCoding.decode(UserProfile.self, from: written) == profile)
        }
    }

    /// The things area's hot results are written exactly as JSONEncoder writes them.
    @Test func thingResultsWriteWhatJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(
            try RPCCoding.encode(CommandMethods.Send.Result(commandID: "c\"1"))
                == Array(try encoder.encode(CommandMethods.Send.Result(commandID: "c\"1")))
        )
        #expect(
            try RPCCoding.encode(CommandMethods.PutResults.Result(commandState: "DONE"))
                == Array(try encoder.encode(CommandMethods.PutResults.Result(commandState: "DONE")))
        )
        for result in [ThingMethods.PutState.Result(created: true, timestamp: -5), .init(created: false, timestamp: 1_795_000_000_000)] {
            #expect(try RPCCoding.encode(result) == Array(try encoder.encode(result)))
        }
    }

    @Test func profilesReadWhatJSONDecoderReads() throws {
        let texts = [
            #"{"userID":"u","isPseudo":true,"createdAt":3}"#,
            #"{ "createdAt" : -3 , "isPseudo":false, "userID":"a\u00e9\"b", "email":null, "fields":{ }, "extra":[1,{}] }"#,
            #"{"userID":"u","isPseudo":true,"createdAt":3,"fields":{"k":[1,2.5,"x"]},"modifiedAt":9}"#,
            #"{"userID":"u","isPseudo":true,"createdAt":3.0}"#,
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            #expect(try RPCCoding.decode(UserProfile.self, from: bytes) == (try self.foundation(UserProfile.self, bytes)))
        }
    }

    @Test func malformedProfilesFailAsBefore() {
        for text in [#"{"userID":"u","isPseudo":1,"createdAt":3}"#, #"{"userID":"u","isPseudo":true}"#, "[]", "{"] {
            #expect(throws: (any Error).self) { try RPCCoding.decode(UserProfile.self, from: Array(text.utf8)) }
        }
    }

    @Test func updateParamsRoundTrip() throws {
        let all = [
            UserMethods.Update.Params(),
            UserMethods.Update.Params(displayName: "n1"),
            UserMethods.Update.Params(userID: "u", displayName: "d", email: "e", phone: "p", fields: ["a": "b", "n": nil]),
        ]
        for params in all {
            let written = try RPCCoding.encode(params)
            #expect(try self.foundation(JSONValue.self, written) == (try self.foundation(JSONValue.self, try self.encoder(params))))
            #expect(try RPCCoding.decodeParams(UserMethods.Update.Params.self, from: written) == params)
        }
    }

    @Test func updateParamsErrorsStillNameTheField() {
        #expect(throws: RPCError.self) {
            try RPCCoding.decodeParams(UserMethods.Update.Params.self, from: Array(#"{"displayName":5}"#.utf8))
        }
        do {
            _ = try RPCCoding.decodeParams(UserMethods.Update.Params.self, from: Array(#"{"displayName":5}"#.utf8))
        } catch {
            #expect(error.field == "displayName")
        }
    }

    @Test func stringsReadWithoutJSONDecoder() throws {
        #expect(try RPCCoding.decode(String.self, from: Array(#""pong""#.utf8)) == "pong")
        #expect(try RPCCoding.decode(String.self, from: Array(#""a\nb\u00e9""#.utf8)) == "a\nb\u{e9}")
        #expect(throws: (any Error).self) { try RPCCoding.decode(String.self, from: Array("5".utf8)) }
    }
    /// `object.create`, `object.replace` and `object.patch` params read by hand decode as JSONDecoder decodes
    /// them, and whatever the fast path leaves (doubles, a key named twice, ifVersion, wrong types) still
    /// decodes, or fails, exactly as through JSONDecoder.
    @Test func objectWriteParamsReadWhatJSONDecoderReads() throws {
        let creates = [
            #"{"scope":"app","bucket":"b","body":{"n":1,"s":"x\u00e9","a":[true,null,{"k":-3}]}}"#,
            #"{"scope":"group:g","bucket":"b","body":{},"objectID":"o1","extra":1}"#,
            #"{"scope":"app","bucket":"b","body":{"d":2.5},"objectID":null}"#,
            #"{"scope":"app","bucket":"b","body":{"k":1,"k":2}}"#,
        ]
        for text in creates {
            let bytes = Array(text.utf8)
            #expect(
                try RPCCoding.decodeParams(ObjectMethods.Create.Params.self, from: bytes)
                    == (try self.foundation(ObjectMethods.Create.Params.self, bytes))
            )
        }
        let writes = [
            #"{"scope":"app","bucket":"b","objectID":"o","body":{"n":[1,2,3]}}"#,
            #"{"scope":"app","bucket":"b","objectID":"o","body":{"n":1},"ifVersion":"2"}"#,
            #"{"scope":"app","bucket":"b","objectID":"o","body":{"n":1e3}}"#,
        ]
        for text in writes {
            let bytes = Array(text.utf8)
            #expect(
                try RPCCoding.decodeParams(ObjectMethods.WriteParams.self, from: bytes)
                    == (try self.foundation(ObjectMethods.WriteParams.self, bytes))
            )
        }
        // Wrong types are JSONDecoder's errors, naming the field.
        for (text, field) in [
            (#"{"scope":1,"bucket":"b","body":{}}"#, "scope"), (#"{"scope":"app","bucket":"b","body":{},"objectID":7}"#, "objectID"),
        ] {
            #expect(throws: RPCError.self) { try RPCCoding.decodeParams(ObjectMethods.Create.Params.self, from: Array(text.utf8)) }
            do {
                _ = try RPCCoding.decodeParams(ObjectMethods.Create.Params.self, from: Array(text.utf8))
            } catch {
                #expect(error.field == field)
            }
        }
    }

    /// `command.send`, `command.putResults` and `thing.putState` params read by hand decode as JSONDecoder
    /// decodes them; what the fast path leaves (doubles, nulls, wrong types) decodes or fails as before.
    @Test func thingParamsReadWhatJSONDecoderReads() throws {
        let sends = [
            #"{"thingID":"th.1","actions":[{"turnPower":{"power":true}},{"beep":{}}],"issuer":"user:u","schema":"s","schemaVersion":2}"#,
            #"{"thingID":"th.1","actions":[{"a":1}],"issuer":"group:g","schema":"s","schemaVersion":1,"title":"t","description":"d","metadata":{"m":[1]}}"#,
            #"{"thingID":"th.1","actions":[{"a":1.5}],"issuer":"user:u","schema":"s","schemaVersion":1.0,"title":null}"#,
        ]
        for text in sends {
            let bytes = Array(text.utf8)
            #expect(
                try RPCCoding.decodeParams(CommandMethods.Send.Params.self, from: bytes)
                    == (try self.foundation(CommandMethods.Send.Params.self, bytes))
            )
        }
        let results = [
            #"{"thingID":"th.1","commandID":"c","actionResults":[{"a":{"succeeded":true,"data":{"x":[1,"y"]}}}]}"#,
            #"{"thingID":"th.1","commandID":"c","actionResults":[{"a":{"succeeded":false,"errorMessage":"e","data":0.25}}]}"#,
        ]
        for text in results {
            let bytes = Array(text.utf8)
            #expect(
                try RPCCoding.decodeParams(CommandMethods.PutResults.Params.self, from: bytes)
                    == (try self.foundation(CommandMethods.PutResults.Params.self, bytes))
            )
        }
        let states = [
            #"{"thingID":"th.1","state":{"power":true,"t":-3,"nested":{"a":[null]}}}"#,
            #"{"thingID":"th.1","state":{"t":20.5},"timestamp":1700000000000}"#,
            #"{"thingID":"th.1","state":{},"timestamp":null}"#,
        ]
        for text in states {
            let bytes = Array(text.utf8)
            #expect(
                try RPCCoding.decodeParams(ThingMethods.PutState.Params.self, from: bytes)
                    == (try self.foundation(ThingMethods.PutState.Params.self, bytes))
            )
        }
        for (text, field) in [
            (#"{"thingID":"th.1","state":[1,2]}"#, "state"), (#"{"thingID":"th.1","state":{},"timestamp":"now"}"#, "timestamp"),
        ] {
            do {
                _ = try RPCCoding.decodeParams(ThingMethods.PutState.Params.self, from: Array(text.utf8))
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.field == field)
            }
        }
        do {
            _ = try RPCCoding.decodeParams(
                CommandMethods.Send.Params.self,
                from: Array(#"{"thingID":"th.1","actions":"x","issuer":"u","schema":"s","schemaVersion":1}"#.utf8)
            )
            Issue.record("actions as a string was accepted")
        } catch {
            #expect(error.field == "actions")
        }
    }

    /// A JSONValue read by hand is the one JSONDecoder reads, and the fast path declines what it would not read
    /// exactly.
    @Test func jsonValuesReadWhatJSONDecoderReads() throws {
        for text in [#"{"a":[1,-2,true,null,"s\n"],"b":{"c":{}}}"#, "[]", "0", #""x""#, "null"] {
            let bytes = Array(text.utf8)
            let read = try bytes.withUnsafeBytes { buffer in JSONValue(exactly: try JSONScanner(maximumDepth: 64).scan(buffer), in: buffer) }
            #expect(read == (try self.foundation(JSONValue.self, bytes)))
        }
        for text in ["1.5", #"{"k":1,"k":2}"#, "[1e3]"] {
            let bytes = Array(text.utf8)
            #expect(try bytes.withUnsafeBytes { buffer in JSONValue(exactly: try JSONScanner(maximumDepth: 64).scan(buffer), in: buffer) } == nil)
        }
    }
}
