#!/usr/bin/env python3
# Writes protocol/openrpc.json: `scripts/gen-openrpc.py > Sources/GuildServer/Resources/openrpc.json`.
# The JSON is the contract (served by rpc.discover, checked against the code by OpenRPCContractTests);
# this script is the convenient way to edit it, and a test checks the two agree.
import json
def ref(n): return {"$ref": f"#/components/schemas/{n}"}
S = lambda **k: dict(k)
string = {"type": "string"}
def param(name, schema, required=False, desc=None):
    p = {"name": name, "schema": schema, "required": required}
    if desc: p["description"] = desc
    return p
def err(code, reason, message):
    return {"code": code, "message": message, "data": {"reason": reason}}
E = {
 "UNAUTHORIZED": err(40101, "UNAUTHORIZED", "This call needs a session"),
 "INVALID_CREDENTIALS": err(40102, "INVALID_CREDENTIALS", "Wrong login name or password"),
 "INVALID_TOKEN": err(40103, "INVALID_TOKEN", "The access token is unknown, revoked or expired"),
 "INVALID_REFRESH_TOKEN": err(40104, "INVALID_REFRESH_TOKEN", "The refresh token is unknown, already used or revoked"),
 "PERMISSION_DENIED": err(40301, "PERMISSION_DENIED", "The caller may not do this"),
 "USER_NOT_FOUND": err(40401, "USER_NOT_FOUND", "No such user"),
 "USER_ALREADY_EXISTS": err(40901, "USER_ALREADY_EXISTS", "The login name, email address or phone number is taken"),
 "IDENTITY_ALREADY_SET": err(40902, "IDENTITY_ALREADY_SET", "The user already has a login identity"),
 "INVALID_INPUT_DATA": err(-32602, "INVALID_INPUT_DATA", "A value breaks a domain rule; data.field names it"),
 "UNSUPPORTED": err(-32602, "UNSUPPORTED", "Not available (e.g. for this group type)"),
 "GROUP_NOT_FOUND": err(40402, "GROUP_NOT_FOUND", "No such group"),
 "GROUP_ALREADY_EXISTS": err(40903, "GROUP_ALREADY_EXISTS", "The group id is taken"),
 "SUBSCRIPTION_NOT_FOUND": err(40404, "SUBSCRIPTION_NOT_FOUND", "No such subscription on this connection"),
 "CURSOR_EXPIRED": err(41001, "CURSOR_EXPIRED", "since is older than the oldest event kept; data.oldestSeq says where the log starts"),
 "TOO_MANY_SUBSCRIPTIONS": err(42901, "TOO_MANY_SUBSCRIPTIONS", "The connection has as many subscriptions as it may"),
}
profile_example = {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "username": "alice", "displayName": "Alice", "fields": {}, "isPseudo": False, "createdAt": 1795348702624, "modifiedAt": 1795348702624}
auth_example = {"user": profile_example, "accessToken": "DD0RbSbC2h_pLGHoDO0SJxX-30z02i7FmgKFwHRpUco", "refreshToken": "q3N1b2X0m3pF7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2", "expiresAt": 3942832349624}
session_example = {"user": profile_example, "expiresAt": 3942832349624, "admin": False, "peer": {"uid": 1000, "gid": 1000, "pid": 4242}}
methods = []
def method(name, summary, auth, params, result_name, result_schema, example_params, example_result, errors=(), tags=(), description=None, paramStructure="by-name"):
    m = {"name": name, "summary": summary, "x-auth": auth, "paramStructure": paramStructure, "params": params,
         "result": {"name": result_name, "schema": result_schema},
         "errors": [E[e] for e in errors],
         "examples": [{"name": f"{name} example", "params": [{"name": k, "value": v} for k, v in example_params.items()], "result": {"name": result_name, "value": example_result}}]}
    if description: m["description"] = description
    if tags: m["tags"] = [{"name": t} for t in tags]
    methods.append(m)

method("rpc.discover", "The OpenRPC document describing every method (this document).", "anyone", [], "document", {"type": "object"}, {}, {"openrpc": "1.3.2"}, tags=["system"])
method("system.ping", "Liveness check: returns \"pong\".", "anyone", [], "pong", {"const": "pong", "type": "string"}, {}, "pong", tags=["system"])
method("system.status", "Version, uptime, activation mode, open connections, database path.", "anyone", [], "status", ref("SystemStatus"), {}, {"version": "0.1.0", "uptimeSeconds": 12.5, "activation": "socket-activated", "connections": 1, "databasePath": "/var/lib/guild/guild.sqlite", "pid": 4242}, tags=["system"])

method("session.authenticate", "Binds an access token to this connection; later calls act as its user.", "anyone",
       [param("accessToken", string, True)], "session", ref("SessionInfo"), {"accessToken": "DD0RbSbC2h_pLGHoDO0SJxX-30z02i7FmgKFwHRpUco"}, session_example, ["INVALID_TOKEN"], ["session"])
method("session.whoami", "The bound user (if any), admin rights and the peer credentials of this connection.", "anyone", [], "session", ref("SessionInfo"), {}, session_example, [], ["session"])
method("session.logout", "Revokes the bound access token (and its refresh token) and unbinds the connection.", "session", [], "loggedOut", {"type": "boolean"}, {}, True, ["UNAUTHORIZED", "INVALID_TOKEN"], ["session"])

ident = [param("username", string, False, "3-64 of [A-Za-z0-9._-], unique (case-insensitive)"), param("email", string, False, "Unique (case-insensitive)"), param("phone", string, False, "'+' and 4-20 digits, unique")]
fields = param("fields", {"type": "object"}, False, "Custom fields: at most 63 KB of JSON; names starting with '_' are dropped")
method("user.register", "Creates a user with a login name, email or phone and a password; logs them in and binds the connection.", "anyone",
       ident + [param("password", string, True, "4-50 printable ASCII characters"), param("displayName", string, False, "At most 50 characters"), fields],
       "auth", ref("AuthResult"), {"username": "alice", "password": "s3cret!", "displayName": "Alice"}, auth_example, ["INVALID_INPUT_DATA", "USER_ALREADY_EXISTS"], ["user"])
method("user.registerPseudo", "Creates a pseudo user (no login identity); its token never expires. Binds the connection.", "anyone",
       [param("displayName", string), fields], "auth", ref("AuthResult"), {"displayName": "Guest"}, {**auth_example, "user": {**profile_example, "username": None, "isPseudo": True, "displayName": "Guest"}, "refreshToken": None, "expiresAt": None}, ["INVALID_INPUT_DATA"], ["user"])
method("user.login", "Exchanges exactly one of username, email or phone and the password for a new session; binds the connection.", "anyone",
       ident + [param("password", string, True)], "auth", ref("AuthResult"), {"username": "alice", "password": "s3cret!"}, auth_example, ["INVALID_CREDENTIALS", "INVALID_INPUT_DATA"], ["user"])
method("user.refresh", "Exchanges a refresh token (single use) for a new access and refresh token; both old tokens stop working.", "anyone",
       [param("refreshToken", string, True)], "auth", ref("AuthResult"), {"refreshToken": "q3N1b2X0m3pF7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2"}, auth_example, ["INVALID_REFRESH_TOKEN"], ["user"])
method("user.putIdentity", "Gives the calling pseudo user a login identity and password in place: same userID, the token keeps working.", "session",
       ident + [param("password", string, True)], "user", ref("UserProfile"), {"username": "alice", "password": "s3cret!"}, profile_example, ["UNAUTHORIZED", "IDENTITY_ALREADY_SET", "USER_ALREADY_EXISTS", "INVALID_INPUT_DATA"], ["user"])
method("user.changePassword", "Changes the caller's password and revokes every token they hold; returns a new session, bound to the connection.", "session",
       [param("oldPassword", string, True), param("newPassword", string, True)], "auth", ref("AuthResult"), {"oldPassword": "s3cret!", "newPassword": "n3w-s3cret"}, auth_example, ["UNAUTHORIZED", "INVALID_CREDENTIALS", "INVALID_INPUT_DATA", "PERMISSION_DENIED"], ["user"])
method("user.get", "A user's profile (the caller's own when userID is absent). Other users' profiles show only their public part.", "session",
       [param("userID", string)], "user", ref("UserProfile"), {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"}, profile_example, ["UNAUTHORIZED", "USER_NOT_FOUND"], ["user"])
method("user.update", "Changes displayName, email, phone or custom fields (merged; a null field value removes it). The caller's own profile, or any as admin.", "session",
       [param("userID", string), param("displayName", string), param("email", string), param("phone", string), fields], "user", ref("UserProfile"), {"displayName": "Alice B."}, {**profile_example, "displayName": "Alice B."}, ["UNAUTHORIZED", "PERMISSION_DENIED", "USER_NOT_FOUND", "USER_ALREADY_EXISTS", "INVALID_INPUT_DATA"], ["user"])
method("user.delete", "Deletes a user and every token they hold: the caller themself, or any user as admin.", "session",
       [param("userID", string)], "deleted", {"type": "object", "properties": {"userID": string, "deleted": {"type": "boolean"}}, "required": ["userID", "deleted"]}, {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"}, {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "deleted": True}, ["UNAUTHORIZED", "PERMISSION_DENIED", "USER_NOT_FOUND"], ["user"])

num = {"type": "number"}
method("subtract", "JSON-RPC 2.0 specification example: minuend - subtrahend, by position or by name.", "anyone",
       [param("minuend", num, True), param("subtrahend", num, True)], "difference", num, {"minuend": 42, "subtrahend": 23}, 19, [], ["conformance"], paramStructure="either")
method("sum", "JSON-RPC 2.0 specification example: the sum of the numbers given by position.", "anyone",
       [param("numbers", num, False)], "sum", num, {}, 0, [], ["conformance"], paramStructure="by-position")
method("get_data", "JSON-RPC 2.0 specification example: returns [\"hello\", 5].", "anyone", [], "data", {"type": "array"}, {}, ["hello", 5], [], ["conformance"])
for n in ["update", "notify_hello", "notify_sum"]:
    method(n, "JSON-RPC 2.0 specification example: accepts anything, returns null (usually sent as a notification).", "anyone", [], "nothing", {"type": "null"}, {}, None, [], ["conformance"], paramStructure="either")

group_example = {"groupID": "sales-div", "name": "Sales Div.", "type": "Basic", "owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "memberCount": 2, "createdAt": 1795348702624, "modifiedAt": 1795348702624}
gid = param("groupID", string, True)
results_schema = {"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": ref("MemberResult")}}}
method("group.create", "Creates a group; the caller becomes owner and member. Unknown initial members come back in notFoundUsers without failing the call. An admin may name another owner, or none.", "session",
       [param("name", string, True, "1-190 characters, not unique"), param("groupID", string, False, "At most 30 of [a-z0-9_.-]; generated when absent"), param("type", {"enum": ["Basic", "Work", "Public", "Meeting", "AVChatRoom", "Community"]}, False, "Default Basic (Kii rules); IM types arrive with the IM group release"), param("members", {"type": "array", "items": string}, False, "Initial member userIDs"), param("owner", string, False, "Admins only: the owner's userID")],
       "created", {"type": "object", "required": ["group", "notFoundUsers"], "properties": {"group": ref("GroupInfo"), "notFoundUsers": {"type": "array", "items": string}}},
       {"name": "Sales Div.", "groupID": "sales-div", "members": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f01", "nope"]}, {"group": group_example, "notFoundUsers": ["nope"]},
       ["UNAUTHORIZED", "INVALID_INPUT_DATA", "GROUP_ALREADY_EXISTS", "USER_NOT_FOUND", "UNSUPPORTED", "PERMISSION_DENIED"], ["group"])
method("group.get", "A group. Any caller with a session may read any group (Kii).", "session", [gid], "group", ref("GroupInfo"), {"groupID": "sales-div"}, group_example, ["UNAUTHORIZED", "GROUP_NOT_FOUND"], ["group"])
method("group.rename", "Renames a group (owner or admin). Members get groupInfoChanged.", "session", [gid, param("name", string, True)], "group", ref("GroupInfo"), {"groupID": "sales-div", "name": "Sales"}, {**group_example, "name": "Sales"}, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "PERMISSION_DENIED", "INVALID_INPUT_DATA"], ["group"])
method("group.delete", "Deletes a group (owner or admin). Members get groupDismissed.", "session", [gid], "deleted", {"type": "boolean"}, {"groupID": "sales-div"}, True, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "PERMISSION_DENIED"], ["group"])
method("group.addMembers", "Adds members (Basic: owner or admin). Per user: SUCC (also for an existing member, as Kii), FAIL with reason USER_NOT_FOUND. Members get memberInvited.", "session",
       [gid, param("userIDs", {"type": "array", "items": string}, True)], "results", results_schema, {"groupID": "sales-div", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]}, {"results": [{"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "result": "SUCC"}]}, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "PERMISSION_DENIED"], ["group"])
method("group.removeMembers", "Removes members: owner or admin removes anyone but the owner (memberKicked); a member may remove themself (memberLeave, and quitFromGroup to them). Per user: SUCC, or FAIL with NOT_A_MEMBER, PERMISSION_DENIED or OWNER_CANNOT_LEAVE.", "session",
       [gid, param("userIDs", {"type": "array", "items": string}, True)], "results", results_schema, {"groupID": "sales-div", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]}, {"results": [{"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "result": "SUCC"}]}, ["UNAUTHORIZED", "GROUP_NOT_FOUND"], ["group"])
method("group.members", "A page of members in join order (at most 200; default 100). Pass nextCursor back until it is 0: no duplicates or omissions while members change.", "session",
       [gid, param("cursor", {"type": "integer"}, False), param("limit", {"type": "integer"}, False)], "page", {"type": "object", "required": ["members", "nextCursor"], "properties": {"members": {"type": "array", "items": ref("GroupMember")}, "nextCursor": {"type": "integer"}}},
       {"groupID": "sales-div", "limit": 2}, {"members": [{"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "role": "owner", "joinedAt": 1795348702624}], "nextCursor": 0}, ["UNAUTHORIZED", "GROUP_NOT_FOUND"], ["group"])
method("group.owner", "The owner's userID, or null for an ownerless group.", "session", [gid], "owner", {"type": "object", "required": ["owner"], "properties": {"owner": {"type": ["string", "null"]}}}, {"groupID": "sales-div"}, {"owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"}, ["UNAUTHORIZED", "GROUP_NOT_FOUND"], ["group"])
method("group.changeOwner", "Makes userID the owner (owner or admin; an ownerless group: admin only). Basic: a non-member becomes a member; the old owner stays a member. Members get groupInfoChanged with changes.owner.", "session",
       [gid, param("userID", string, True)], "group", ref("GroupInfo"), {"groupID": "sales-div", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"}, {**group_example, "owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"}, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "PERMISSION_DENIED", "USER_NOT_FOUND"], ["group"])
groups_schema = {"type": "object", "required": ["groups"], "properties": {"groups": {"type": "array", "items": ref("GroupInfo")}}}
method("user.memberOfGroups", "The groups a user is a member of (the caller's own when userID is absent); empty, not an error, when none.", "session", [param("userID", string)], "groups", groups_schema, {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"}, {"groups": [group_example]}, ["UNAUTHORIZED"], ["user", "group"])
method("user.ownerOfGroups", "The groups a user owns; always a subset of user.memberOfGroups.", "session", [param("userID", string)], "groups", groups_schema, {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"}, {"groups": [group_example]}, ["UNAUTHORIZED"], ["user", "group"])
method("system.check", "SQLite's integrity check and Guild's group invariants (at most one owner, the owner is a member, member counts and user-group links agree). guildctl admin check.", "admin", [], "check",
       {"type": "object", "required": ["ok", "integrity", "violations"], "properties": {"ok": {"type": "boolean"}, "integrity": {"type": "array", "items": string}, "violations": {"type": "array", "items": string}}}, {}, {"ok": True, "integrity": ["ok"], "violations": []}, ["PERMISSION_DENIED"], ["system"])
kinds = ["groupCreated", "memberEnter", "memberLeave", "memberKicked", "memberInvited", "groupInfoChanged", "groupDismissed", "quitFromGroup"]
method("events.subscribe", "Subscribes to group events. Returns the subscription id and the log's head seq; events then arrive as events.event notifications, never before this reply. With since, events after since are replayed first, then live ones follow with no gap and no duplicate. A user sees events of groups they belonged to at the time and events naming them; all: true (admins only) watches every group. A subscriber that falls more than the queue limit behind gets events.ended (LAGGED, lastSeq) and resubscribes with since: lastSeq.", "session",
       [param("groupIDs", {"type": "array", "items": string}, False, "Only these groups"), param("kinds", {"type": "array", "items": {"enum": kinds}}, False, "Only these kinds"), param("since", {"type": "integer"}, False, "Replay events after this seq first"), param("all", {"type": "boolean"}, False, "Admins: every group")],
       "subscription", {"type": "object", "required": ["subscription", "seq"], "properties": {"subscription": string, "seq": {"type": "integer"}}}, {"since": 0}, {"subscription": "s1", "seq": 42},
       ["UNAUTHORIZED", "CURSOR_EXPIRED", "TOO_MANY_SUBSCRIPTIONS", "PERMISSION_DENIED", "INVALID_INPUT_DATA"], ["events"])
method("events.unsubscribe", "Ends a subscription of this connection.", "session", [param("subscription", string, True)], "unsubscribed", {"type": "boolean"}, {"subscription": "s1"}, True, ["SUBSCRIPTION_NOT_FOUND"], ["events"])

methods.sort(key=lambda m: m["name"])
profile_schema = {"type": "object", "required": ["userID", "isPseudo", "createdAt"], "properties": {
    "userID": string, "username": string, "email": string, "phone": string, "displayName": string, "fields": {"type": "object"},
    "isPseudo": {"type": "boolean"}, "createdAt": {"type": "integer", "description": "ms since the Unix epoch"}, "modifiedAt": {"type": "integer"}}}
doc = {
 "openrpc": "1.3.2",
 "info": {"title": "Guild", "version": "0.1.0", "description": "Guild's local identity, group and messaging daemon: JSON-RPC 2.0, one compact message per newline-terminated line, over a Unix domain socket (see protocol/framing.md). `x-auth` says who may call each method: anyone who can connect, a connection bound to a session (or an admin), or an admin (peer uid root or --admin-uid, from SO_PEERCRED). Errors carry data.reason (protocol/errors.md)."},
 "servers": [{"name": "guildd", "url": "unix:/run/guild/guild.sock"}],
 "methods": methods,
 "x-notifications": [
   {"name": "events.event", "summary": "One event of a subscription, in seq order.", "params": [{"name": "subscription", "schema": string}, {"name": "seq", "schema": {"type": "integer"}}, {"name": "event", "schema": ref("Event")}]},
   {"name": "events.ended", "summary": "The subscription is over: reason LAGGED when the subscriber fell more than the queue limit behind. Resubscribe with since: lastSeq to lose nothing.", "params": [{"name": "subscription", "schema": string}, {"name": "reason", "schema": {"enum": ["LAGGED"]}}, {"name": "lastSeq", "schema": {"type": "integer"}}]}
 ],
 "components": {"schemas": {
   "UserProfile": profile_schema,
   "AuthResult": {"type": "object", "required": ["user", "accessToken"], "properties": {"user": ref("UserProfile"), "accessToken": string, "refreshToken": string, "expiresAt": {"type": "integer"}}},
   "SessionInfo": {"type": "object", "required": ["admin", "peer"], "properties": {"user": ref("UserProfile"), "expiresAt": {"type": "integer"}, "admin": {"type": "boolean"}, "peer": {"type": "object", "required": ["uid", "gid", "pid"], "properties": {"uid": {"type": "integer"}, "gid": {"type": "integer"}, "pid": {"type": "integer"}}}}},
   "SystemStatus": {"type": "object", "required": ["version", "uptimeSeconds", "activation", "connections", "databasePath", "pid"], "properties": {"version": string, "uptimeSeconds": num, "activation": {"enum": ["socket-activated", "bound"]}, "connections": {"type": "integer"}, "databasePath": string, "pid": {"type": "integer"}}},
   "GroupInfo": {"type": "object", "required": ["groupID", "name", "type", "owner", "memberCount", "createdAt", "modifiedAt"], "properties": {"groupID": string, "name": string, "type": string, "owner": {"type": ["string", "null"]}, "memberCount": {"type": "integer"}, "createdAt": {"type": "integer"}, "modifiedAt": {"type": "integer"}}},
   "GroupMember": {"type": "object", "required": ["userID", "role", "joinedAt"], "properties": {"userID": string, "role": {"enum": ["owner", "admin", "member"]}, "joinedAt": {"type": "integer"}}},
   "MemberResult": {"type": "object", "required": ["userID", "result"], "properties": {"userID": string, "result": {"enum": ["SUCC", "INVALID", "PENDING", "FAIL", "OVERLIMIT"]}, "reason": string}},
   "Event": {"type": "object", "required": ["seq", "kind", "groupID", "users", "time"], "properties": {"seq": {"type": "integer", "description": "Global, gap-free sequence number"}, "kind": {"enum": ["groupCreated", "memberEnter", "memberLeave", "memberKicked", "memberInvited", "groupInfoChanged", "groupDismissed", "quitFromGroup"]}, "groupID": string, "actor": {"type": ["string", "null"], "description": "The acting user; null when an admin without a session, or the system, acted"}, "byAdmin": {"type": "boolean"}, "users": {"type": "array", "items": string, "description": "The users the event is about"}, "changes": {"type": "object", "description": "What changed: name, type, owner, previousOwner, reason"}, "time": {"type": "integer"}}},
   "Error": {"type": "object", "required": ["code", "message", "data"], "properties": {"code": {"type": "integer"}, "message": string, "data": {"type": "object", "required": ["reason"], "properties": {"reason": string, "field": string}}}}
 }}
}
print(json.dumps(doc, indent=2, ensure_ascii=False))
