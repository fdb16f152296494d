extension ErrorReason {
    /// Every code and reason, by section of `protocol/errors.md` (which is generated from it).
    public static let sections: [ErrorSection] = [
        ErrorSection(
            title: "JSON-RPC 2.0 codes",
            introduction: #"""

                """#,
            listsExtraMembers: true,
            entries: [
                ErrorEntry(
                    .parseError,
                    "PARSE_ERROR",
                    when: "The line is not JSON, or not valid UTF-8. The reply has `\"id\": null`; the connection stays open."
                ),
                ErrorEntry(.parseError, "NESTING_TOO_DEEP", when: "Arrays/objects nested deeper than 128 levels. `\"id\": null`."),
                ErrorEntry(
                    .invalidRequest,
                    "INVALID_REQUEST",
                    when:
                        "Not a request object: `jsonrpc` is not `\"2.0\"`, `method` is not a string, `params` is neither object nor array, `id` is not a string, number or null. The id is echoed when it could be read, else `null`."
                ),
                ErrorEntry(.invalidRequest, "EMPTY_BATCH", when: "`[]`. One error, `\"id\": null`."),
                ErrorEntry(
                    .invalidRequest,
                    "BATCH_TOO_LARGE",
                    when: "A batch with more entries than `--max-batch` (default 1000). One error, `\"id\": null`; no entry runs."
                ),
                ErrorEntry(
                    .invalidRequest,
                    "FRAME_TOO_LARGE",
                    when: "A line longer than `--max-frame-bytes` (default 1 MiB). `\"id\": null`, then the connection is closed."
                ),
                ErrorEntry(
                    .invalidRequest,
                    "FRAME_TIMEOUT",
                    when:
                        "A line whose first byte arrived more than `--frame-timeout` (default 10 s) ago is still not finished (a peer that trickles a request, or never ends it). `\"id\": null`, then the connection is closed."
                ),
                ErrorEntry(.methodNotFound, "METHOD_NOT_FOUND", when: "No such method.", extra: ["method"]),
                ErrorEntry(
                    .invalidParams,
                    "INVALID_PARAMS",
                    when: "A parameter is missing, `null`, or of the wrong type; params by position for a by-name method.",
                    extra: ["field"]
                ),
                ErrorEntry(
                    .invalidParams,
                    "TOO_MANY_ITEMS",
                    summary: "A list-valued param holds more items than maxItems/maxProperties; data.field, data.limit",
                    when:
                        "A list-valued param (an array, or an object of named values) holds more items than its method allows: 1,000 unless the method's OpenRPC `maxItems` says otherwise (`events.subscribe` `groupIDs`, `group.addMembers` `userIDs`, custom `fields`, ...). Checked before anything runs.",
                    extra: ["field", "limit"]
                ),
                ErrorEntry(
                    .invalidParams,
                    "INVALID_INPUT_DATA",
                    domain: .meaning("A value failed a domain rule (`field` says which).", case: "invalidInput"),
                    summary: "A value breaks a domain rule; data.field names it",
                    when:
                        "A value breaks a domain rule (Kii's `INVALID_INPUT_DATA`): user name, password, display name, email, phone, custom fields, a Basic group's id or name (IM groups answer 10004 and 10015 instead), an unknown event kind, a `since` beyond the log's head.",
                    extra: ["field"]
                ),
                ErrorEntry(
                    .invalidParams,
                    "NUMBER_OUT_OF_RANGE",
                    summary:
                        "A number out of range: an integer param beyond a 64-bit integer, or a result that is not a finite number (an overflow to infinity, or NaN), which JSON cannot hold",
                    when:
                        "An integer param beyond its type's range (a 64-bit integer: `9223372036854775808`, `1e300`); `data.field` names it (a fraction such as `1.5` where an integer is wanted is `INVALID_PARAMS`, naming the field too). Or a numeric result JSON cannot hold: `sum` or `subtract` overflowing to infinity (`sum [1e308, 1e308]`), or NaN. Guild never writes a non-finite number, and never `null` in its place.",
                    extra: ["field"]
                ),
                ErrorEntry(.internalError, "INTERNAL_ERROR", when: "Something failed inside the daemon. Details are in its log, never in the reply."),
            ],
            closing: #"""

                """#
        ),
        ErrorSection(
            title: "Transport limits (-32000 to -32099)",
            introduction: #"""

                """#,
            listsExtraMembers: true,
            entries: [
                ErrorEntry(
                    .tooManyRequests,
                    "TOO_MANY_REQUESTS",
                    when:
                        "The connection already has `--max-in-flight` (default 256) requests running. Retry when replies arrive. Notifications over the limit are dropped (they are never answered).",
                    extra: ["limit"]
                ),
                ErrorEntry(
                    .tooManyConnections,
                    "TOO_MANY_CONNECTIONS",
                    when:
                        "The daemon already serves `--max-connections` (default 4096; `data.scope` `daemon`), or the peer's uid already holds `--max-connections-per-uid` (default 256; `data.scope` `uid`). Admin peers (root, `--admin-uid`) are not counted per uid and have 64 slots beyond `--max-connections`, so an admin always gets in. Sent with `\"id\": null` right after accept, then the connection is closed.",
                    extra: ["scope", "limit"]
                ),
                ErrorEntry(.shuttingDown, "SHUTTING_DOWN", when: "The daemon is stopping and did not start the request."),
                ErrorEntry(
                    .serverBusy,
                    "SERVER_BUSY",
                    summary: "Too many expensive calls running (per connection, per principal or in the daemon; data.scope, data.limit); retry later",
                    when:
                        "An expensive method (\(OpenRPCContract.expensiveMethodNames.map { "`\($0)`" }.joined(separator: ", ")); `x-expensive` in the OpenRPC document) would pass a concurrency bound: 2 running per connection (`data.scope` `connection`), 2 per principal, i.e. per user or, without a session, per peer uid (`principal`), 4 in the daemon (`daemon`, `--max-expensive`). Nothing queues: retry after a moment. Cheap calls are never refused this way, and always find a free database reader.",
                    extra: ["scope", "limit"]
                ),
                ErrorEntry(
                    .responseTooLarge,
                    "RESPONSE_TOO_LARGE",
                    when:
                        "A batch whose replies would take more than `--max-batch-reply-bytes` (default 4 MiB): the entries answered once the budget is spent get this error instead of their result (every entry is still answered; send those again, alone or in smaller batches).",
                    extra: ["limit"]
                ),
                ErrorEntry(
                    .idleTimeout,
                    "IDLE_TIMEOUT",
                    when:
                        "A connection from a non-admin peer had no session, no subscription and no request for `--idle-timeout` (default 60 s). Sent with `\"id\": null`, then the connection is closed. Connections with a session or a subscription never time out."
                ),
            ],
            closing: #"""

                """#
        ),
        ErrorSection(
            title: "Application codes",
            introduction: #"""

                Guild's own codes mirror the HTTP status Kii Cloud uses for the same condition (`40401` is Kii's 404
                `USER_NOT_FOUND`), so they never collide with JSON-RPC's negative codes or with Tencent IM's 10xxx codes.

                """#,
            listsExtraMembers: false,
            entries: [
                ErrorEntry(
                    .unauthorized,
                    "UNAUTHORIZED",
                    domain: .meaning("No session is bound and the call needs one."),
                    summary: "This call needs a session",
                    when:
                        "The method needs a session (`x-auth: session`, or `principal`, which a thing's session also satisfies) and the connection has none: call `session.authenticate`, `user.login`, `user.register` or `user.registerPseudo` first."
                ),
                ErrorEntry(
                    .invalidCredentials,
                    "INVALID_CREDENTIALS",
                    domain: .meaning("The login name or password is wrong."),
                    summary: "Wrong login name or password",
                    when:
                        "Wrong login name or password (`user.login`), or wrong old password (`user.changePassword`, `field: oldPassword`). The same answer, after the same work, whether or not the user exists."
                ),
                ErrorEntry(
                    .invalidToken,
                    "INVALID_TOKEN",
                    domain: .meaning("The access token is unknown, revoked or expired."),
                    summary: "The access token is unknown, revoked or expired",
                    when:
                        "The access token is unknown, revoked (logout, password change, refresh, user deleted) or expired. A bound connection whose token was revoked gets this on its next call and is unbound."
                ),
                ErrorEntry(
                    .invalidRefreshToken,
                    "INVALID_REFRESH_TOKEN",
                    domain: .meaning("The refresh token is unknown, already used or revoked."),
                    summary: "The refresh token is unknown, already used or revoked",
                    when: "The refresh token is unknown, already used (they are single-use) or revoked."
                ),
                ErrorEntry(
                    .permissionDenied,
                    "PERMISSION_DENIED",
                    domain: .meaning("The caller may not do this."),
                    summary: "The caller may not do this",
                    when:
                        "The caller may not do this: another user's profile change or deletion without admin rights, an admin-only method (`x-auth: admin`) from a non-admin peer, a password change by a pseudo user, a user-only method (`x-auth: session`) on a connection bound to a thing, a thing's call by a non-owner (protocol/things.md). Admin rights come only from the peer's uid (`SO_PEERCRED`): root or `--admin-uid`."
                ),
                ErrorEntry(
                    .userNotFound,
                    "USER_NOT_FOUND",
                    domain: .meaning("No such user."),
                    summary: "No such user",
                    when: "No user with that id."
                ),
                ErrorEntry(
                    .userAlreadyExists,
                    "USER_ALREADY_EXISTS",
                    domain: .meaning("A login name, email address or phone number is taken."),
                    summary: "The login name, email address or phone number is taken",
                    when:
                        "The user name, email address or phone number is taken (compared case-insensitively for name and email). `field` says which."
                ),
                ErrorEntry(
                    .identityAlreadySet,
                    "IDENTITY_ALREADY_SET",
                    domain: .meaning("The user already has a login identity."),
                    summary: "The user already has a login identity",
                    when: "`user.putIdentity` on a user who is not a pseudo user."
                ),
                ErrorEntry(
                    .groupNotFound,
                    "GROUP_NOT_FOUND",
                    domain: .meaning("No such group."),
                    summary: "No such group",
                    when: "No group with that id (never created, or deleted)."
                ),
                ErrorEntry(
                    .groupAlreadyExists,
                    "GROUP_ALREADY_EXISTS",
                    domain: .meaning("The group id is taken."),
                    summary: "The group id is taken",
                    when: "`group.create` with a `groupID` that is taken."
                ),
                ErrorEntry(
                    .subscriptionNotFound,
                    "SUBSCRIPTION_NOT_FOUND",
                    domain: .meaning("No such subscription on this connection."),
                    summary: "No such subscription on this connection",
                    when: "`events.unsubscribe` of a subscription this connection does not hold."
                ),
                ErrorEntry(
                    .cursorExpired,
                    "CURSOR_EXPIRED",
                    domain: .meaning("A subscription's `since` is older than the events kept."),
                    summary: "since is older than the oldest event kept; data.oldestSeq says where the log starts",
                    when:
                        "`events.subscribe` with a `since` older than the oldest event kept (retention: `--event-retention-count`, `--event-retention-days`). `data.oldestSeq` is the oldest kept; resubscribe with `since: oldestSeq - 1` (and accept the loss) or without `since`."
                ),
                ErrorEntry(
                    .tooManySubscriptions,
                    "TOO_MANY_SUBSCRIPTIONS",
                    domain: .meaning("The connection has as many subscriptions as it may."),
                    summary: "The connection has as many subscriptions as it may",
                    when: "The connection already holds `--max-subscriptions` (default 1024)."
                ),
                ErrorEntry(
                    .storageFull,
                    "STORAGE_FULL",
                    domain: .meaning("The database's file system is full: nothing was written."),
                    summary: "The database's file system is full: nothing was written; retry once space is freed",
                    when:
                        "The database's file system is full (SQLite's `SQLITE_FULL`; HTTP's 507). The write was not stored, and neither was any other write of the same group commit: nothing answered before is lost, reads keep working. Retry once space is freed; no restart is needed. The daemon logs one line per burst (at most one per 10 s, with how many failures it did not log)."
                ),
                ErrorEntry(
                    .storageUnavailable,
                    "STORAGE_UNAVAILABLE",
                    domain: .meaning("The database cannot be reached: nothing was written."),
                    summary: "The database cannot be reached: nothing was written; retry",
                    when:
                        "guildd runs on a PostgreSQL database (`--database postgresql://...`) that it cannot reach: the server is stopped, restarting or refusing connections, or the connection dropped before the write committed (HTTP's 503). Nothing of the call was stored. The daemon reconnects by itself (backoff from 50 ms to 5 s) and answers normally once the database is back; reads fail the same way meanwhile. Never on the embedded SQLite store."
                ),
                ErrorEntry(
                    .writeOutcomeUnknown,
                    "WRITE_OUTCOME_UNKNOWN",
                    domain: .meaning("The connection to the database dropped while committing: the write may or may not be stored."),
                    summary: "The connection to the database dropped while the write committed: it may or may not be stored",
                    when:
                        "guildd runs on PostgreSQL and the connection dropped while COMMIT was in flight, so the daemon cannot know whether the write was stored. Read back what the call would have changed before retrying a write that must not happen twice. Never on the embedded SQLite store."
                ),
            ],
            closing: #"""

                """#
        ),
        ErrorSection(
            title: "Object and ACL codes (Kii's names)",
            introduction: #"""

                Objects, buckets and ACLs (`object.*`, `bucket.*`, `acl.*`) answer with Kii's error names in `data.reason`
                and codes numbered like the application codes. A read the caller may not make answers exactly as if
                the object or bucket did not exist (see protocol/objects.md), so these not-found errors never tell
                whether something exists that the caller may not see.

                """#,
            listsExtraMembers: false,
            entries: [
                ErrorEntry(
                    .objectNotFound,
                    "OBJECT_NOT_FOUND",
                    domain: .meaning("No such object, or one the caller may not read (Kii's OBJECT_NOT_FOUND)."),
                    summary: "No such object, or one the caller may not read",
                    when: "The object (or its bucket) does not exist, or the caller may not read it."
                ),
                ErrorEntry(
                    .bucketNotFound,
                    "BUCKET_NOT_FOUND",
                    domain: .meaning("No such bucket, or one the caller may not see (Kii's BUCKET_NOT_FOUND)."),
                    summary: "No such bucket, or one the caller may not see",
                    when:
                        "The bucket does not exist, or the caller holds none of its bucket-level rights (`object.query`, `bucket.delete`, `acl.*` on a bucket)."
                ),
                ErrorEntry(
                    .aclNotFound,
                    "ACL_NOT_FOUND",
                    domain: .meaning("No such ACL entry (Kii's ACL_NOT_FOUND)."),
                    summary: "No such ACL entry",
                    when: "`acl.revoke` of an entry that is not granted (per entry in `failed`, or the call's error with `atomic`)."
                ),
                ErrorEntry(
                    .objectAlreadyExists,
                    "OBJECT_ALREADY_EXISTS",
                    domain: .meaning("An object with that id exists in the bucket (Kii's OBJECT_ALREADY_EXISTS)."),
                    summary: "An object with that id exists",
                    when: "`object.create` with an `objectID` already used in the bucket."
                ),
                ErrorEntry(
                    .objectVersionIsStale,
                    "OBJECT_VERSION_IS_STALE",
                    domain: .meaning("`ifVersion` is not the object's version (Kii's OBJECT_VERSION_IS_STALE)."),
                    summary: "The object changed since the version given",
                    when: "`ifVersion` is not the object's `_version` (`object.replace`, `object.patch`, `object.delete`); nothing was written."
                ),
                ErrorEntry(
                    .aclAlreadyExists,
                    "ACL_ALREADY_EXISTS",
                    domain: .meaning("The ACL entry is already granted (Kii's ACL_ALREADY_EXISTS)."),
                    summary: "The ACL entry is already granted",
                    when: "`acl.grant` of an entry already in force (unless `ensure`)."
                ),
                ErrorEntry(
                    .aclEntryFixed,
                    "ACL_ENTRY_FIXED",
                    domain: .meaning("The ACL entry is a fixed default (the scope owner's or the creator's) and cannot be revoked."),
                    summary: "A fixed default entry cannot be revoked",
                    when: "`acl.revoke` of a default entry of the scope's owner or of the bucket's or object's creator."
                ),
                ErrorEntry(
                    .queryNotSupported,
                    "QUERY_NOT_SUPPORTED",
                    domain: .meaning("The query uses a clause type Guild does not support (Kii's QUERY_NOT_SUPPORTED)."),
                    summary: "The query uses a clause type Guild does not support",
                    when: "A clause `type` other than all, eq, prefix, range, in, not, and, or, hasField (geobox, geodistance, regular expressions)."
                ),
                ErrorEntry(
                    .objectTooLarge,
                    "OBJECT_TOO_LARGE",
                    domain: .meaning("An object's JSON is over the size limit."),
                    summary: "The object is too large",
                    when: "An object's JSON (its fields, after a patch is merged) is over 65,534 characters (Kii's limit); nothing was written."
                ),
            ],
            closing: #"""

                """#
        ),
        ErrorSection(
            title: "Thing codes (Kii Thing-IF's names)",
            introduction: #"""

                Things, their owners, commands, states, installations and triggers (`thing.*`, `command.*`,
                `installation.*`, `trigger.*`, `user.ownedThings`; see protocol/things.md) answer with Kii Thing-IF's
                error names in `data.reason`. A wrong thing password, on onboarding or when adding an owner, is
                `INVALID_CREDENTIALS` (40102) and never says whether the vendorThingID or the password was wrong.

                """#,
            listsExtraMembers: false,
            entries: [
                ErrorEntry(
                    .thingNotFound,
                    "THING_NOT_FOUND",
                    domain: .meaning("No such thing (Kii Thing-IF's THING_NOT_FOUND)."),
                    summary: "No such thing",
                    when: "The `thingID` names no thing (or one deleted)."
                ),
                ErrorEntry(
                    .thingDisabled,
                    "THING_DISABLED",
                    domain: .meaning("The thing is disabled (Kii's thing status `disabled`): it cannot authenticate or be onboarded."),
                    summary: "The thing is disabled",
                    when:
                        "`session.authenticate` with a disabled thing's token, a call on a connection bound to a thing disabled since (the connection is unbound), or `thing.onboard` of a disabled thing; `thing.enable` ends it."
                ),
                ErrorEntry(
                    .thingOwnershipNotFound,
                    "THING_OWNERSHIP_NOT_FOUND",
                    domain: .meaning("The user or group does not own the thing."),
                    summary: "The user or group does not own the thing",
                    when: "`thing.removeOwner` of an owner the thing does not have."
                ),
                ErrorEntry(
                    .commandNotFound,
                    "COMMAND_NOT_FOUND",
                    domain: .meaning("No such command on the thing."),
                    summary: "No such command on the thing",
                    when: "`command.get` or `command.putResults` with a `commandID` the thing never received."
                ),
                ErrorEntry(
                    .stateNotFound,
                    "STATE_NOT_FOUND",
                    domain: .meaning("The thing has never uploaded a state (Kii's STATE_NOT_FOUND)."),
                    summary: "The thing has not uploaded a state",
                    when: "`thing.getState` before the thing's first `thing.putState`."
                ),
                ErrorEntry(
                    .triggerNotFound,
                    "TRIGGER_NOT_FOUND",
                    domain: .meaning("No such trigger on the thing."),
                    summary: "No such trigger on the thing",
                    when: "`trigger.enable`, `trigger.disable` or `trigger.delete` with an unknown `triggerID`."
                ),
                ErrorEntry(
                    .installationNotFound,
                    "INSTALLATION_NOT_FOUND",
                    domain: .meaning("No such installation of the caller."),
                    summary: "No such installation of the caller",
                    when: "`installation.delete` of an installation that is not the caller's (or does not exist)."
                ),
                ErrorEntry(
                    .thingOwnershipAlreadyExists,
                    "THING_OWNERSHIP_ALREADY_EXISTS",
                    domain: .meaning("The owner already owns the thing (Kii's THING_OWNERSHIP_ALREADY_EXISTS)."),
                    summary: "The owner already owns the thing",
                    when: "`thing.addOwner` (or a repeated `thing.onboard`) naming an owner the thing already has."
                ),
                ErrorEntry(
                    .commandAlreadyDone,
                    "COMMAND_ALREADY_DONE",
                    domain: .meaning("The command's results were already posted."),
                    summary: "The command's results were already posted",
                    when: "A second `command.putResults` for a command in state DONE or INCOMPLETE; nothing changes."
                ),
                ErrorEntry(
                    .stateHistoryNotAvailable,
                    "STATE_HISTORY_NOT_AVAILABLE",
                    domain: .meaning("The thing has never uploaded a state, so it has no history (Kii's STATE_HISTORY_NOT_AVAILABLE)."),
                    summary: "The thing has never uploaded a state",
                    when: "`thing.stateHistory` of a thing that never called `thing.putState` (Kii answers 409 too)."
                ),
                ErrorEntry(
                    .stateTooLarge,
                    "STATE_TOO_LARGE",
                    domain: .meaning("A state is over 10 KB."),
                    summary: "The state is over 10 KB",
                    when: "`thing.putState` with a state whose JSON is over 10,240 bytes (Kii's limit); nothing was stored."
                ),
                ErrorEntry(
                    .quotaExceeded,
                    "QUOTA_EXCEEDED",
                    domain: .meaning("A per-principal bound on what may be stored is reached (`details`: `limit` and `usage`); nothing was written."),
                    summary: "A per-principal storage bound is reached",
                    when:
                        "A write past one of the bounds in the README's operations section (installations per user, commands pending per thing, bytes stored per owner); the message names the bound, nothing was written.",
                    extra: ["limit", "usage"]
                ),
            ],
            closing: #"""

                """#
        ),
        ErrorSection(
            title: "IM group codes (Tencent Cloud IM's numbers)",
            introduction: #"""

                Groups of the IM types (`Work`, `Public`, `Meeting`, `AVChatRoom`, `Community`) follow Tencent's rules and answer
                with Tencent's group error numbers; `Basic` groups keep Kii's codes above. `data.reason` tells apart the
                conditions Tencent folds into one number (10007 says *why* it refused: a common complaint about Tencent's
                "opaque 10007"). Which type allows what is the policy table, served by `group.types`.

                """#,
            listsExtraMembers: false,
            entries: [
                ErrorEntry(
                    .imInvalidParameters,
                    "INVALID_PARAMETERS",
                    domain: .meaning(
                        "An IM group rule's parameter limit (Tencent's 10004): byte limits, invitee counts, attributes.",
                        case: "imInvalidParameters"
                    ),
                    summary: "An IM group limit: bytes of a profile field, invitees per call, attribute limits, a role that cannot be given",
                    when:
                        "An IM limit, `field` names it: name 1-30 bytes (Tencent IM), introduction/notification at most 400 bytes, faceURL at most 500, custom keys 1-16 bytes and values at most 512, nameCard at most 50, more than 20 invitees in one call (app admins: 300), attributes (at most 16 keys of 1-32 bytes, values at most 4 KB, 16 KB in all), the owner role given other than by transfer, a role the type does not have, an unknown applicationID, a mute outside 0 to 4294967295 seconds, a message over 12 KB."
                ),
                ErrorEntry(
                    .imNotAllowed,
                    "NOT_ALLOWED",
                    domain: .meaning("The caller's role in an IM group does not allow this (Tencent's 10007)."),
                    summary: "The caller's role may not do this in this type of group",
                    when:
                        "The caller's role may not do this in this type (e.g. an admin kicking or muting another admin or the owner, a member editing a Public group's profile, joining a group whose addOpt is FORBID, changing the owner's role)."
                ),
                ErrorEntry(
                    .imNotAllowed,
                    "UNSUPPORTED_FOR_TYPE",
                    domain: .meaning("The group's type does not support the operation (Tencent's 10007).", case: "unsupported"),
                    summary: "This type of group does not support the operation for clients",
                    when:
                        "No client role may do this in this type: joining Work (invitation only), inviting into Public/Meeting/Community (Tencent's server API, i.e. an app admin, may), kicking or transferring in AVChatRoom, muting in Work, admins in Work/AVChatRoom, dismissing a Work group from a client (app admins only), attributes outside AVChatRoom (Tencent IM), joining or applications in Basic."
                ),
                ErrorEntry(
                    .imNotAllowed,
                    "NOT_A_MEMBER",
                    domain: .meaning("The caller (or the user named) is not a member of the IM group (Tencent's 10007)."),
                    summary: "The caller, or the user named, is not a member",
                    when:
                        "The caller (or the user named, `field: userID`) is not a member: quitting, listing members of an IM group, attributes, messages, a transfer to a non-member."
                ),
                ErrorEntry(
                    .ownerCannotQuit,
                    "OWNER_CANNOT_QUIT",
                    domain: .meaning("The owner may not quit this type of group (Tencent's 10009)."),
                    summary: "The owner may not quit this type of group",
                    when: "The owner quits a group whose type does not let them (all but Work; transfer or dismiss first). Also Basic owners."
                ),
                ErrorEntry(
                    .groupDismissed,
                    "GROUP_DISMISSED",
                    domain: .meaning("The group was dismissed (Tencent's 10010)."),
                    summary: "The group was dismissed",
                    when:
                        "Any call naming a dismissed IM group. Its id is never reused. (An id that never named a group is `40402 GROUP_NOT_FOUND`, for every type.)"
                ),
                ErrorEntry(
                    .alreadyMember,
                    "ALREADY_MEMBER",
                    domain: .meaning("Already a member (Tencent's 10013)."),
                    summary: "Already a member",
                    when:
                        "`group.join` by a member; `group.addMembers` in an IM group where every user named is already a member (with others, those get `INVALID`)."
                ),
                ErrorEntry(
                    .groupFull,
                    "GROUP_FULL",
                    domain: .meaning("The group is full (Tencent's 10014)."),
                    summary: "The group has as many members as its type allows",
                    when:
                        "The group has as many members as its type allows (Work 200, Public 2,000, Meeting 6,000, Community 100,000; AVChatRoom unlimited): joining, accepting, creating with too many members."
                ),
                ErrorEntry(
                    .invalidGroupID,
                    "INVALID_GROUP_ID",
                    domain: .meaning("The IM group id breaks the id rules (Tencent's 10015)."),
                    summary: "The IM group id breaks the id rules",
                    when:
                        "An IM group id that is not 1-48 bytes of printable ASCII without spaces, starts with `@TGS#` (reserved for generated ids), or, for Community, does not start with `@TGS#_`."
                ),
                ErrorEntry(
                    .muted,
                    "MUTED",
                    domain: .meaning("The sender is muted (Tencent's 10017)."),
                    summary: "The sender is muted, or the whole group is",
                    when: "`group.sendMessage` by a muted member, or by an ordinary member while `allMuted`."
                ),
                ErrorEntry(
                    .groupIDInUse,
                    "GROUP_ID_IN_USE",
                    domain: .meaning("The IM group id is taken (Tencent's 10021)."),
                    summary: "The IM group id is taken (or was, by a dismissed group)",
                    when: "`group.create` of an IM group with an id that is taken, or was taken by a dismissed group."
                ),
                ErrorEntry(
                    .alreadyProcessed,
                    "ALREADY_PROCESSED",
                    domain: .meaning("The application was already handled (Tencent's 10024)."),
                    summary: "The application was already handled",
                    when: "Accepting or refusing an application that was already handled."
                ),
                ErrorEntry(
                    .attributeRateLimited,
                    "ATTRIBUTE_RATE_LIMITED",
                    domain: .meaning("Too many attribute writes (Tencent's 10049)."),
                    summary: "Too many attribute writes to this group this second",
                    when: "More than 5 attribute writes (init, set, delete together) to one group within a second (Tencent's server limit)."
                ),
                ErrorEntry(
                    .attributeConflict,
                    "ATTRIBUTE_CONFLICT",
                    domain: .meaning("A stale attribute write (Tencent's 10056)."),
                    summary: "The attributes changed since the version named",
                    when: "An attribute write naming a `version` that is no longer current: another writer came first. Read again and retry."
                ),
                ErrorEntry(
                    .sendRateLimited,
                    "SEND_RATE_LIMITED",
                    domain: .meaning("The sender sent too many messages this second (Tencent's 10023)."),
                    summary: "The sender sent too many group messages this second",
                    when: "More `group.sendMessage` calls by one user within a second than the daemon allows (`--message-rate-per-user`, default 50)."
                ),
                ErrorEntry(
                    .messageNotFound,
                    "MESSAGE_NOT_FOUND",
                    domain: .meaning("No such message in the group, or it was recalled (Tencent's 10030)."),
                    summary: "No such message in the group",
                    when: "`group.recallMessage` of a msgID the group does not hold (unknown, past retention, or already recalled)."
                ),
                ErrorEntry(
                    .recallTimeLimit,
                    "RECALL_TIME_LIMIT",
                    domain: .meaning("The sender's recall window is over (Tencent's 10031)."),
                    summary: "The recall window is over",
                    when:
                        "`group.recallMessage` by the message's sender more than 2 minutes after sending (the owner and admins may recall at any time)."
                ),
                ErrorEntry(
                    .messageTooLong,
                    "MESSAGE_TOO_LONG",
                    domain: .meaning("The message body is over its size limit (Tencent's 80002)."),
                    summary: "The message body is over 12 KB",
                    when:
                        "`group.sendMessage` whose text, or custom JSON, plus cloudCustomData is over 12,288 bytes (Tencent's REST error for an oversized body)."
                ),
            ],
            closing: #"""

                Where Tencent's sources disagree, Guild follows Tencent's group management guide and says so in
                `protocol/im-groups.md`.

                """#
        ),
    ]
}

extension ErrorReason {
    /// Every code with the reasons it may carry, in the order of `protocol/errors.md` (generated from
    /// ``sections``).
    public static let catalog: [(code: ErrorCode, reasons: [String])] = {
        var catalog: [(code: ErrorCode, reasons: [String])] = []
        for entry in sections.flatMap(\.entries) {
            if let index = catalog.firstIndex(where: { $0.code == entry.code }) {
                catalog[index].reasons.append(entry.reason)
            } else {
                catalog.append((entry.code, [entry.reason]))
            }
        }
        return catalog
    }()

    /// The catalog's entry for a reason.
    public static func entry(for reason: String) -> ErrorEntry? {
        entries[reason]
    }

    private static let entries: [String: ErrorEntry] = Dictionary(
        uniqueKeysWithValues: sections.flatMap(\.entries).map { ($0.reason, $0) }
    )
}

extension ErrorSection {
    /// The text of `protocol/errors.md` before its first section.
    public static let preamble = #"""
        # Errors

        Every error Guild sends is a JSON-RPC 2.0 error object with a stable numeric `code` and a `data` object
        that always has `reason` (UPPER_SNAKE, stable) and, when one input field is at fault, `field` (its name,
        dotted for nested values: `fields.color`, `[0]`). Some reasons carry more members, listed below.
        `message` is for humans and may change; match on `code` and `data.reason`.

        ```json
        {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"username must be 3 to 64 characters","data":{"field":"username","reason":"INVALID_INPUT_DATA"}}}
        ```

        The catalog in code is `ErrorReason.sections` (Sources/GuildProtocol/Methods/Contract/ErrorReason+Catalog.swift); a test
        fails when it and this table disagree.

        """#

    /// The sections of `protocol/errors.md` after the code tables, as written.
    public static let trailer = #"""
        ## Per-user results

        `group.addMembers` and `group.removeMembers` do not fail as a whole for one user: each user gets
        `{"userID", "result", "reason"?}` with `result` one of Tencent's `SUCC`, `INVALID`, `PENDING`, `FAIL`,
        `OVERLIMIT`, and for `FAIL` a `reason`: `USER_NOT_FOUND`, `NOT_A_MEMBER`, `PERMISSION_DENIED`,
        `OWNER_CANNOT_LEAVE` (transfer ownership first), `GROUP_FULL`. In IM groups an existing member invited again
        gets `INVALID`, a user who is in 10,000 groups gets `OVERLIMIT`, and removing (kicking) a non-member gives
        `INVALID` with reason `NOT_A_MEMBER`; a refused kick fails the whole call (10007). Guild never answers `PENDING`
        for an invitation: invitations need no approval in any type (Tencent's `groupApproveOpt` is not modelled).

        ## Subscription end

        A subscription that falls more than `--subscription-queue` (default 10,000) events behind, or whose connection
        already has `--max-output-bytes` (default 4 MiB: replies and notifications together) waiting to be read, ends
        with a notification, not an error:
        `{"jsonrpc":"2.0","method":"events.ended","params":{"subscription":"s1","reason":"LAGGED","lastSeq":1234}}`.
        Every event up to `lastSeq` was sent before it; resubscribe with `since: lastSeq` to lose nothing. A thing's
        subscriptions end the same way with `"reason":"THING_DISABLED"` when an owner disables it (`thing.disable`): its
        connection is unbound at once; once enabled, it authenticates again and resubscribes with `since: lastSeq`.

        ## Other limits

        What one peer can make the daemon hold is bounded; protocol/liveness.md explains the design.

        | limit | default | past it |
        |---|---|---|
        | `--max-frame-bytes`, one line | 1 MiB | `FRAME_TOO_LARGE`, connection closed |
        | `--frame-timeout`, one line's arrival | 10 s | `FRAME_TIMEOUT`, connection closed |
        | `--max-batch`, entries in a batch | 1,000 | `BATCH_TOO_LARGE` |
        | `--max-batch-reply-bytes`, one batch's replies | 4 MiB | later entries `RESPONSE_TOO_LARGE` |
        | `--max-in-flight`, requests running per connection | 256 | `TOO_MANY_REQUESTS` |
        | `--max-output-bytes`, bytes waiting to be read per connection | 4 MiB | subscriptions end `LAGGED`; replies wait (the connection is not read meanwhile) |
        | `--write-stall-timeout`, a connection not reading its replies | 30 s | connection closed |
        | `--max-subscriptions`, per connection | 1,024 | `TOO_MANY_SUBSCRIPTIONS` |
        | items in a list-valued param | 1,000 | `TOO_MANY_ITEMS` |
        | expensive calls | 2 per connection, 2 per principal, 4 in all | `SERVER_BUSY` |
        | `--max-connections` / `--max-connections-per-uid` | 4,096 / 256 | `TOO_MANY_CONNECTIONS`, connection closed |
        | `--idle-timeout`, a connection with no session or subscription | 60 s | `IDLE_TIMEOUT`, connection closed |

        ## guildctl exit codes

        `guildctl` maps errors to exit codes (see `guildctl --help`): 0 success, 1 other application error,
        2 invalid params or request, 3 method not found, 4 unauthorized or bad credentials/token, 5 permission
        denied (40301, or 10007 in an IM group), 64 usage error, 69 cannot connect.

        """#
}
