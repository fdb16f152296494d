import GuildJSON
import GuildProtocol

/// Typed calls of the objects area: objects, buckets and ACLs (see protocol/objects.md). Scopes are `app`,
/// `group:ID` or `user:ID`; objects come back as their fields plus `_id`, `_version`, `_created`, `_modified`
/// and `_owner`.
extension GuildClient {
    /// `object.create`: stores `body` in a bucket (created when the scope allows it); returns its id.
    @discardableResult
    public func createObject(
        scope: String,
        bucket: String,
        body: [String: JSONValue],
        objectID: String? = nil
    ) async throws
        -> ObjectMethods.Create.Result
    {
        try await self.call(ObjectMethods.Create.self, .init(scope: scope, bucket: bucket, body: .object(body), objectID: objectID))
    }

    /// `object.get`: an object the caller may read.
    public func object(scope: String, bucket: String, objectID: String) async throws -> [String: JSONValue] {
        try Self.fields(try await self.call(ObjectMethods.Get.self, .init(scope: scope, bucket: bucket, objectID: objectID)))
    }

    /// `object.replace`: the object's fields become `body`; with `ifVersion`, only at that version.
    @discardableResult
    public func replaceObject(
        scope: String,
        bucket: String,
        objectID: String,
        body: [String: JSONValue],
        ifVersion: Int64? = nil
    )
        async throws -> [String: JSONValue]
    {
        try await self.writeObject(ObjectMethods.Replace.self, scope: scope, bucket: bucket, objectID: objectID, body: body, ifVersion: ifVersion)
    }

    /// `object.patch`: sets the top-level fields of `body`, keeping the others.
    @discardableResult
    public func patchObject(
        scope: String,
        bucket: String,
        objectID: String,
        body: [String: JSONValue],
        ifVersion: Int64? = nil
    )
        async throws -> [String: JSONValue]
    {
        try await self.writeObject(ObjectMethods.Patch.self, scope: scope, bucket: bucket, objectID: objectID, body: body, ifVersion: ifVersion)
    }

    private func writeObject<M: RPCMethod>(
        _ method: M.Type,
        scope: String,
        bucket: String,
        objectID: String,
        body: [String: JSONValue],
        ifVersion: Int64?
    ) async throws -> [String: JSONValue] where M.Params == ObjectMethods.WriteParams, M.Result == JSONValue {
        let params = ObjectMethods.WriteParams(
            scope: scope,
            bucket: bucket,
            objectID: objectID,
            body: .object(body),
            ifVersion: ifVersion.map { ObjectVersion($0) }
        )
        return try Self.fields(try await self.call(M.self, params))
    }

    /// `object.delete`.
    public func deleteObject(scope: String, bucket: String, objectID: String, ifVersion: Int64? = nil) async throws {
        _ = try await self.call(
            ObjectMethods.Delete.self,
            .init(scope: scope, bucket: bucket, objectID: objectID, ifVersion: ifVersion.map { ObjectVersion($0) })
        )
    }

    /// `object.query`: one page; pass its `nextPaginationKey` back for the next.
    public func queryObjects(
        scope: String,
        bucket: String,
        clause: JSONValue? = nil,
        orderBy: String? = nil,
        descending: Bool? = nil,
        limit: Int? = nil,
        paginationKey: String? = nil
    ) async throws -> ObjectMethods.Query.Result {
        try await self.call(
            ObjectMethods.Query.self,
            .init(
                scope: scope,
                bucket: bucket,
                clause: clause,
                orderBy: orderBy,
                descending: descending,
                limit: limit,
                paginationKey: paginationKey
            )
        )
    }

    /// `bucket.list`: the scope's buckets the caller may see.
    public func buckets(scope: String) async throws -> [BucketMethods.BucketInfo] {
        try await self.call(BucketMethods.List.self, .init(scope: scope)).buckets
    }

    /// `bucket.delete`: drops a bucket with all its objects.
    public func deleteBucket(scope: String, bucket: String) async throws {
        _ = try await self.call(BucketMethods.Delete.self, .init(scope: scope, bucket: bucket))
    }

    /// `acl.get`: the entries in force on a scope, bucket or object.
    public func acl(scope: String, bucket: String? = nil, objectID: String? = nil) async throws -> [ACLMethods.Entry] {
        try await self.call(ACLMethods.Get.self, .init(scope: scope, bucket: bucket, objectID: objectID)).entries
    }

    /// `acl.grant`: each entry on its own unless `atomic`; `ensure` makes it idempotent.
    @discardableResult
    public func grant(
        _ entries: [ACLMethods.Entry],
        scope: String,
        bucket: String? = nil,
        objectID: String? = nil,
        atomic: Bool = false,
        ensure: Bool = false
    ) async throws -> ACLMethods.ChangeResult {
        try await self.call(ACLMethods.Grant.self, Self.aclChange(entries, scope, bucket, objectID, atomic, ensure))
    }

    /// `acl.revoke`: each entry on its own unless `atomic`; `ensure` makes it idempotent.
    @discardableResult
    public func revoke(
        _ entries: [ACLMethods.Entry],
        scope: String,
        bucket: String? = nil,
        objectID: String? = nil,
        atomic: Bool = false,
        ensure: Bool = false
    ) async throws -> ACLMethods.ChangeResult {
        try await self.call(ACLMethods.Revoke.self, Self.aclChange(entries, scope, bucket, objectID, atomic, ensure))
    }

    /// The params of `acl.grant` and `acl.revoke` (flags left out when false).
    private static func aclChange(
        _ entries: [ACLMethods.Entry],
        _ scope: String,
        _ bucket: String?,
        _ objectID: String?,
        _ atomic: Bool,
        _ ensure: Bool
    ) -> ACLMethods.ChangeParams {
        .init(scope: scope, bucket: bucket, objectID: objectID, entries: entries, atomic: atomic ? true : nil, ensure: ensure ? true : nil)
    }

    private static func fields(_ value: JSONValue) throws -> [String: JSONValue] {
        guard case .object(let fields) = value else { throw GuildClientError.invalidResponse("the result is not a JSON object") }
        return fields
    }
}
