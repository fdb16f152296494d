import GuildCore
import GuildJSON
import GuildProtocol

extension MethodRegistry {
    /// `object.*`, `bucket.*` and `acl.*`.
    mutating func registerObjectMethods(_ objects: ObjectService) {
        self.register(ObjectMethods.Create.self) { params, context in
            let object = try await objects.create(
                caller: context.caller,
                scope: try ObjectScope(params.scope),
                bucket: params.bucket,
                body: params.body,
                objectID: params.objectID
            )
            return .init(objectID: object.objectID, version: String(object.version), created: object.created)
        }
        self.registerRead(ObjectMethods.Get.self, store: objects.store) { params, caller, tx in
            let object = try ObjectService.get(
                caller: caller,
                scope: try ObjectScope(params.scope),
                bucket: params.bucket,
                objectID: params.objectID,
                in: tx
            )
            return .object(object.view)
        }
        self.register(ObjectMethods.Replace.self) { params, context in
            try await Self.update(objects, params, .replace(params.body), context.caller)
        }
        self.register(ObjectMethods.Patch.self) { params, context in
            try await Self.update(objects, params, .patch(params.body), context.caller)
        }
        self.register(ObjectMethods.Delete.self) { params, context in
            try await objects.delete(
                caller: context.caller,
                scope: try ObjectScope(params.scope),
                bucket: params.bucket,
                objectID: params.objectID,
                ifVersion: params.ifVersion?.value
            )
            return true
        }
        self.register(ObjectMethods.Query.self) { params, context in
            let clause = try params.clause.map { json throws(GuildError) in try ObjectClause(json: json) } ?? .all
            let orderBy = try params.orderBy.map { text throws(GuildError) in try FieldPath(text, field: "orderBy") }
            if let limit = params.limit, limit < 1 {
                throw GuildError.invalidInput("limit is at least 1 (at most \(ObjectService.maximumQueryLimit))", field: "limit")
            }
            let page = try await objects.query(
                caller: context.caller,
                scope: try ObjectScope(params.scope),
                bucket: params.bucket,
                clause: clause,
                orderBy: orderBy,
                descending: params.descending ?? false,
                limit: params.limit,
                paginationKey: params.paginationKey
            )
            return .init(results: page.objects.map { .object($0.view) }, nextPaginationKey: page.nextPaginationKey)
        }
        self.register(BucketMethods.List.self) { params, context in
            let buckets = try await objects.buckets(caller: context.caller, scope: try ObjectScope(params.scope))
            return .init(
                buckets: buckets.map { .init(bucket: $0.name, objectCount: $0.objectCount, created: $0.created, creator: $0.creator) }
            )
        }
        self.register(BucketMethods.Delete.self) { params, context in
            try await objects.deleteBucket(caller: context.caller, scope: try ObjectScope(params.scope), bucket: params.bucket)
            return true
        }
        self.register(ACLMethods.Get.self) { params, context in
            let target = try Self.aclTarget(scope: params.scope, bucket: params.bucket, objectID: params.objectID)
            let entries = try await objects.acl(caller: context.caller, target: target)
            return .init(entries: entries.map { .init(action: $0.action.rawValue, subject: $0.subject.description, fixed: $0.fixed) })
        }
        self.register(ACLMethods.Grant.self) { params, context in
            try await Self.changeACL(objects, params, revoke: false, context.caller)
        }
        self.register(ACLMethods.Revoke.self) { params, context in
            try await Self.changeACL(objects, params, revoke: true, context.caller)
        }
    }

    private static func update(
        _ objects: ObjectService,
        _ params: ObjectMethods.WriteParams,
        _ change: ObjectService.Change,
        _ caller: Caller
    ) async throws -> JSONValue {
        let object = try await objects.update(
            caller: caller,
            scope: try ObjectScope(params.scope),
            bucket: params.bucket,
            objectID: params.objectID,
            change: change,
            ifVersion: params.ifVersion?.value
        )
        return .object(object.view)
    }

    private static func aclTarget(scope: String, bucket: String?, objectID: String?) throws -> ACLTarget {
        if objectID != nil && bucket == nil {
            throw GuildError.invalidInput("an object's ACL needs its bucket", field: "bucket")
        }
        return ACLTarget(scope: try ObjectScope(scope), bucket: bucket, objectID: objectID)
    }

    private static func changeACL(
        _ objects: ObjectService,
        _ params: ACLMethods.ChangeParams,
        revoke: Bool,
        _ caller: Caller
    ) async throws
        -> ACLMethods.ChangeResult
    {
        let change = try await objects.changeACL(
            caller: caller,
            target: try Self.aclTarget(scope: params.scope, bucket: params.bucket, objectID: params.objectID),
            entries: params.entries.map { .init(action: $0.action, subject: $0.subject) },
            revoke: revoke,
            atomic: params.atomic ?? false,
            ensure: params.ensure ?? false
        )
        return .init(
            succeeded: change.succeeded.map { .init(action: $0.action.rawValue, subject: $0.subject.description) },
            failed: change.failed.map { failure in
                let wire = failure.error.rpcError
                return .init(
                    action: failure.entry.action.rawValue,
                    subject: failure.entry.subject.description,
                    code: wire.code.rawValue,
                    reason: wire.reason ?? "",
                    message: failure.error.message
                )
            }
        )
    }
}
