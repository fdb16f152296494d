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
 "GROUP_NOT_FOUND": err(40402, "GROUP_NOT_FOUND", "No such group"),
 "GROUP_ALREADY_EXISTS": err(40903, "GROUP_ALREADY_EXISTS", "The group id is taken"),
 "SUBSCRIPTION_NOT_FOUND": err(40404, "SUBSCRIPTION_NOT_FOUND", "No such subscription on this connection"),
 "CURSOR_EXPIRED": err(41001, "CURSOR_EXPIRED", "since is older than the oldest event kept; data.oldestSeq says where the log starts"),
 "TOO_MANY_SUBSCRIPTIONS": err(42901, "TOO_MANY_SUBSCRIPTIONS", "The connection has as many subscriptions as it may"),
 "INVALID_PARAMETERS": err(10004, "INVALID_PARAMETERS", "An IM group limit: bytes of a profile field, invitees per call, attribute limits, a role that cannot be given"),
 "NOT_ALLOWED": err(10007, "NOT_ALLOWED", "The caller's role may not do this in this type of group"),
 "UNSUPPORTED_FOR_TYPE": err(10007, "UNSUPPORTED_FOR_TYPE", "This type of group does not support the operation for clients"),
 "NOT_A_MEMBER": err(10007, "NOT_A_MEMBER", "The caller, or the user named, is not a member"),
 "OWNER_CANNOT_QUIT": err(10009, "OWNER_CANNOT_QUIT", "The owner may not quit this type of group"),
 "GROUP_DISMISSED": err(10010, "GROUP_DISMISSED", "The group was dismissed"),
 "ALREADY_MEMBER": err(10013, "ALREADY_MEMBER", "Already a member"),
 "GROUP_FULL": err(10014, "GROUP_FULL", "The group has as many members as its type allows"),
 "INVALID_GROUP_ID": err(10015, "INVALID_GROUP_ID", "The IM group id breaks the id rules"),
 "MUTED": err(10017, "MUTED", "The sender is muted, or the whole group is"),
 "GROUP_ID_IN_USE": err(10021, "GROUP_ID_IN_USE", "The IM group id is taken (or was, by a dismissed group)"),
 "ALREADY_PROCESSED": err(10024, "ALREADY_PROCESSED", "The application was already handled"),
 "ATTRIBUTE_RATE_LIMITED": err(10049, "ATTRIBUTE_RATE_LIMITED", "Too many attribute writes to this group this second"),
 "ATTRIBUTE_CONFLICT": err(10056, "ATTRIBUTE_CONFLICT", "The attributes changed since the version named"),
 "SERVER_BUSY": err(-32004, "SERVER_BUSY", "Too many expensive calls running (per connection, per principal or in the daemon; data.scope, data.limit); retry later"),
 "TOO_MANY_ITEMS": err(-32602, "TOO_MANY_ITEMS", "A list-valued param holds more items than maxItems/maxProperties; data.field, data.limit"),
 "NUMBER_OUT_OF_RANGE": err(-32602, "NUMBER_OUT_OF_RANGE", "The result is not a finite number (an overflow to infinity, or NaN), which JSON cannot hold"),
 "STORAGE_FULL": err(50701, "STORAGE_FULL", "The database's file system is full: nothing was written; retry once space is freed"),
}
# Methods whose calls may take long or read a lot: they run under admission bounds (protocol/liveness.md).
EXPENSIVE = {"system.check", "group.members", "user.memberOfGroups", "user.ownerOfGroups", "group.joinedList"}
ITEM_LIMIT = 1000
def bounded(schema):
    """Adds the daemon's default item limit to a list-valued param's schema."""
    t = schema.get("type")
    if t == "array" and "maxItems" not in schema: return {**schema, "maxItems": ITEM_LIMIT}
    if t == "object" and "maxProperties" not in schema: return {**schema, "maxProperties": ITEM_LIMIT}
    return schema
profile_example = {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "username": "alice", "displayName": "Alice", "fields": {}, "isPseudo": False, "createdAt": 1795348702624, "modifiedAt": 1795348702624}
auth_example = {"user": profile_example, "accessToken": "gt_DD0RbSbC2h_pLGHoDO0SJxX-30z02i7FmgKFwHRpUco", "refreshToken": "gt_q3N1b2X0m3pF7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2", "expiresAt": 3942832349624}
session_example = {"user": profile_example, "expiresAt": 3942832349624, "admin": False, "peer": {"uid": 1000, "gid": 1000, "pid": 4242}}
methods = []
# Methods that write to the database, and so may answer STORAGE_FULL when its file system is full.
WRITES = {"session.logout", "user.register", "user.registerPseudo", "user.login", "user.refresh", "user.putIdentity",
          "user.changePassword", "user.update", "user.delete", "group.create", "group.rename", "group.delete",
          "group.addMembers", "group.removeMembers", "group.changeOwner", "group.join", "group.quit", "group.dismiss",
          "group.setInfo", "group.setReceiveOption", "group.initAttributes", "group.setAttributes",
          "group.deleteAttributes", "group.setMemberInfo", "group.muteMember", "group.setMemberRole",
          "group.transferOwner", "group.sendMessage"}
def method(name, summary, auth, params, result_name, result_schema, example_params, example_result, errors=(), tags=(), description=None, paramStructure="by-name"):
    params = [{**p, "schema": bounded(p["schema"])} for p in params]
    errors = list(errors)
    if any("maxItems" in p["schema"] or "maxProperties" in p["schema"] for p in params): errors.append("TOO_MANY_ITEMS")
    if name in EXPENSIVE: errors.append("SERVER_BUSY")
    m = {"name": name, "summary": summary, "x-auth": auth, "paramStructure": paramStructure, "params": params,
         "result": {"name": result_name, "schema": result_schema},
         "errors": [E[e] for e in list(errors) + (["STORAGE_FULL"] if name in WRITES else [])],
         "examples": [{"name": f"{name} example", "params": [{"name": k, "value": v} for k, v in example_params.items()], "result": {"name": result_name, "value": example_result}}]}
    if description: m["description"] = description
    if tags: m["tags"] = [{"name": t} for t in tags]
    if name in EXPENSIVE: m["x-expensive"] = True
    methods.append(m)

method("rpc.discover", "The OpenRPC document describing every method (this document).", "anyone", [], "document", {"type": "object"}, {}, {"openrpc": "1.3.2"}, tags=["system"])
method("system.ping", "Liveness check: returns \"pong\".", "anyone", [], "pong", {"const": "pong", "type": "string"}, {}, "pong", tags=["system"])
method("system.health", "Liveness through the request path: dispatch, a database read (the event log's head) and a reply. Unlike system.ping, it fails when requests cannot be served; the systemd watchdog is fed from it.", "anyone", [], "health", {"type": "object", "required": ["status", "seq"], "properties": {"status": {"const": "ok", "type": "string"}, "seq": {"type": "integer"}}}, {}, {"status": "ok", "seq": 1234}, tags=["system"])
method("system.status", "Version, uptime, activation mode, open connections, database path, and how many transactions and writes the store has committed.", "anyone", [], "status", ref("SystemStatus"), {}, {"version": "0.1.0", "uptimeSeconds": 12.5, "activation": "socket-activated", "connections": 1, "databasePath": "/var/lib/guild/guild.sqlite", "pid": 4242, "writes": {"commits": 1830, "operations": 9544}}, tags=["system"])

method("session.authenticate", "Binds an access token to this connection; later calls act as its user.", "anyone",
       [param("accessToken", string, True)], "session", ref("SessionInfo"), {"accessToken": "gt_DD0RbSbC2h_pLGHoDO0SJxX-30z02i7FmgKFwHRpUco"}, session_example, ["INVALID_TOKEN"], ["session"])
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
       [param("refreshToken", string, True)], "auth", ref("AuthResult"), {"refreshToken": "gt_q3N1b2X0m3pF7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2"}, auth_example, ["INVALID_REFRESH_TOKEN"], ["user"])
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
       [param("minuend", num, True), param("subtrahend", num, True)], "difference", num, {"minuend": 42, "subtrahend": 23}, 19, ["NUMBER_OUT_OF_RANGE"], ["conformance"], paramStructure="either")
method("sum", "JSON-RPC 2.0 specification example: the sum of the numbers given by position.", "anyone",
       [param("numbers", num, False)], "sum", num, {}, 0, ["NUMBER_OUT_OF_RANGE"], ["conformance"], paramStructure="by-position")
method("get_data", "JSON-RPC 2.0 specification example: returns [\"hello\", 5].", "anyone", [], "data", {"type": "array"}, {}, ["hello", 5], [], ["conformance"])
for n in ["update", "notify_hello", "notify_sum"]:
    method(n, "JSON-RPC 2.0 specification example: accepts anything, returns null (usually sent as a notification).", "anyone", [], "nothing", {"type": "null"}, {}, None, [], ["conformance"], paramStructure="either")

group_example = {"groupID": "sales-div", "name": "Sales Div.", "type": "Basic", "owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "memberCount": 2, "createdAt": 1795348702624, "modifiedAt": 1795348702624}
gid = param("groupID", string, True)
results_schema = {"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": ref("MemberResult")}}}
method("group.create", "Creates a group; the caller becomes owner and member. Unknown initial members come back in notFoundUsers without failing the call. An admin may name another owner, or none. The type decides the rules (group.types).", "session",
       [param("name", string, True, "Basic: 1-190 characters; IM types: 1-30 bytes (seed 003)"), param("groupID", string, False, "Basic: at most 30 of [a-z0-9_.-]; IM types: 1-48 bytes of printable ASCII, not starting @TGS# (Community: must start @TGS#_); generated when absent"), param("type", {"enum": ["Basic", "Work", "Public", "Meeting", "AVChatRoom", "Community"]}, False, "Default Basic (Kii rules)"), param("members", {"type": "array", "items": {"oneOf": [string, {"type": "object", "required": ["userID"], "properties": {"userID": string, "role": {"enum": ["admin", "member"]}}}]}}, False, "Initial members: userIDs, or {userID, role}"), param("owner", string, False, "Admins only: the owner's userID"),
        param("introduction", string, False, "At most 400 bytes"), param("notification", string, False, "At most 400 bytes"), param("faceURL", string, False, "At most 500 bytes"), param("addOpt", {"enum": ["FORBID", "AUTH", "ANY"]}, False, "How non-members join (default per type)"), param("custom", {"type": "object", "additionalProperties": string}, False, "Custom fields: keys 1-16 bytes, values at most 512 bytes")],
       "created", {"type": "object", "required": ["group", "notFoundUsers"], "properties": {"group": ref("GroupInfo"), "notFoundUsers": {"type": "array", "items": string}}},
       {"name": "Sales Div.", "groupID": "sales-div", "members": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f01", "nope"]}, {"group": group_example, "notFoundUsers": ["nope"]},
       ["UNAUTHORIZED", "INVALID_INPUT_DATA", "GROUP_ALREADY_EXISTS", "USER_NOT_FOUND", "PERMISSION_DENIED", "INVALID_PARAMETERS", "INVALID_GROUP_ID", "GROUP_ID_IN_USE", "GROUP_FULL", "UNSUPPORTED_FOR_TYPE"], ["group"])
method("group.get", "A group. Any caller with a session may read any group (Kii).", "session", [gid], "group", ref("GroupInfo"), {"groupID": "sales-div"}, group_example, ["UNAUTHORIZED", "GROUP_NOT_FOUND"], ["group"])
method("group.rename", "Renames a group (owner or admin). Members get groupInfoChanged.", "session", [gid, param("name", string, True)], "group", ref("GroupInfo"), {"groupID": "sales-div", "name": "Sales"}, {**group_example, "name": "Sales"}, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "PERMISSION_DENIED", "INVALID_INPUT_DATA"], ["group"])
method("group.delete", "Deletes a group (owner or admin). Members get groupDismissed.", "session", [gid], "deleted", {"type": "boolean"}, {"groupID": "sales-div"}, True, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "PERMISSION_DENIED"], ["group"])
method("group.addMembers", "Adds members (Basic: owner or admin). Per user: SUCC (also for an existing member, as Kii), FAIL with reason USER_NOT_FOUND. Members get memberInvited.", "session",
       [gid, param("userIDs", {"type": "array", "items": string}, True)], "results", results_schema, {"groupID": "sales-div", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]}, {"results": [{"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "result": "SUCC"}]}, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "PERMISSION_DENIED"], ["group"])
method("group.removeMembers", "Removes members: owner or admin removes anyone but the owner (memberKicked); a member may remove themself (memberLeave, and quitFromGroup to them). Per user: SUCC, or FAIL with NOT_A_MEMBER, PERMISSION_DENIED or OWNER_CANNOT_LEAVE.", "session",
       [gid, param("userIDs", {"type": "array", "items": string}, True)], "results", results_schema, {"groupID": "sales-div", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]}, {"results": [{"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "result": "SUCC"}]}, ["UNAUTHORIZED", "GROUP_NOT_FOUND"], ["group"])
method("group.members", "A page of members in join order (at most 200; default 100). Pass nextCursor back until it is 0: no duplicates or omissions while members change.", "session",
       [gid, param("cursor", {"type": "integer"}, False), param("limit", {"type": "integer"}, False)], "page", {"type": "object", "required": ["members", "nextCursor"], "properties": {"members": {"type": "array", "items": ref("GroupMember")}, "nextCursor": {"type": "integer"}}},
       {"groupID": "sales-div", "limit": 2}, {"members": [{"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "role": "owner", "joinedAt": 1795348702624}], "nextCursor": 0}, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "GROUP_DISMISSED", "NOT_A_MEMBER"], ["group"])
method("group.owner", "The owner's userID, or null for an ownerless group.", "session", [gid], "owner", {"type": "object", "required": ["owner"], "properties": {"owner": {"type": ["string", "null"]}}}, {"groupID": "sales-div"}, {"owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"}, ["UNAUTHORIZED", "GROUP_NOT_FOUND"], ["group"])
method("group.changeOwner", "Makes userID the owner (owner or admin; an ownerless group: admin only). Basic: a non-member becomes a member; the old owner stays a member. Members get groupInfoChanged with changes.owner.", "session",
       [gid, param("userID", string, True)], "group", ref("GroupInfo"), {"groupID": "sales-div", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"}, {**group_example, "owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"}, ["UNAUTHORIZED", "GROUP_NOT_FOUND", "PERMISSION_DENIED", "USER_NOT_FOUND"], ["group"])

profile_ex = {**group_example, "groupID": "@TGS#2C5SZEAEF", "name": "Book club", "type": "Public", "memberLimit": 2000, "introduction": "", "notification": "", "faceURL": "", "addOpt": "AUTH", "allMuted": False, "custom": {}}
profile_list = {"type": "object", "required": ["groups"], "properties": {"groups": {"type": "array", "items": ref("GroupProfile")}}}
attrs_schema = {"type": "object", "required": ["attributes", "version"], "properties": {"attributes": {"type": "object", "additionalProperties": string}, "version": {"type": "integer"}}}
attrs_ex = {"attributes": {"mic1": "alice"}, "version": 3}
G = ["UNAUTHORIZED", "GROUP_NOT_FOUND", "GROUP_DISMISSED"]
uid = param("userID", string, True)
member_ex = {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "role": "owner", "joinedAt": 1795348702624, "nameCard": "", "nickName": "Alice", "muteUntil": 0, "receiveOption": "RECEIVE", "custom": {}}
pgid = "@TGS#2C5SZEAEF"
method("group.types", "The policy table: for each group type, its roles, how one joins, who may invite, edit, kick, mute, dismiss, transfer, change roles, handle applications and list members, member limits, and which events members get.", "anyone", [], "types",
       {"type": "object", "required": ["types"], "properties": {"types": {"type": "array", "items": ref("GroupTypeRules")}}}, {}, {"types": []}, [], ["group", "im"])
method("group.join", "Joins a group: at once (addOpt ANY: members get memberEnter), as a pending application (AUTH: the owner and admins get receiveJoinApplication), or refused (FORBID; Work and Basic groups are joined only by being added).", "session",
       [gid, param("message", string, False, "For the approvers: at most 300 bytes")], "join", {"type": "object", "required": ["status"], "properties": {"status": {"enum": ["JOINED", "PENDING"]}, "applicationID": {"type": "integer"}}},
       {"groupID": pgid, "message": "Hi!"}, {"status": "PENDING", "applicationID": 7}, G + ["ALREADY_MEMBER", "GROUP_FULL", "NOT_ALLOWED", "UNSUPPORTED_FOR_TYPE"], ["group", "im"])
method("group.applications", "A page of at most 50 join applications to a group, newest first, pending and handled, with unreadCount (pending). Owner and admins (group.types handleApplications). Pass nextSeq back until it is 0.", "session",
       [gid, param("nextSeq", {"type": "integer"}, False)], "applications", {"type": "object", "required": ["applications", "unreadCount", "nextSeq"], "properties": {"applications": {"type": "array", "items": ref("GroupApplication")}, "unreadCount": {"type": "integer"}, "nextSeq": {"type": "integer"}}},
       {"groupID": pgid}, {"applications": [{"applicationID": 7, "groupID": pgid, "fromUser": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "type": "JOIN", "requestMsg": "Hi!", "status": "PENDING", "handledBy": None, "handledMsg": "", "createdAt": 1795348702624, "handledAt": None}], "unreadCount": 1, "nextSeq": 0},
       G + ["NOT_ALLOWED", "NOT_A_MEMBER", "UNSUPPORTED_FOR_TYPE"], ["group", "im"])
for verb, what in [("accept", "The applicant joins (members get memberEnter)"), ("refuse", "The applicant stays out")]:
    method(f"group.{verb}Application", f"{verb.capitalize()}s a pending join application (owner and admins). {what}; the applicant alone gets applicationProcessed. Handling an application twice gives 10024.", "session",
           [gid, param("applicationID", {"type": "integer"}, True), param("message", string, False, "For the applicant: at most 300 bytes")], "handled", {"type": "boolean"},
           {"groupID": pgid, "applicationID": 7, "message": "Welcome"}, True, G + ["ALREADY_PROCESSED", "INVALID_PARAMETERS", "NOT_ALLOWED", "NOT_A_MEMBER", "UNSUPPORTED_FOR_TYPE", "GROUP_FULL"], ["group", "im"])
method("group.quit", "The caller leaves: members get memberLeave, the caller quitFromGroup (not in AVChatRoom). The owner may quit only a Work group (10009 otherwise); the longest-standing member then becomes owner, and a group left empty is dismissed.", "session",
       [gid], "quit", {"type": "boolean"}, {"groupID": pgid}, True, G + ["NOT_A_MEMBER", "OWNER_CANNOT_QUIT"], ["group", "im"])
method("group.dismiss", "Dismisses a group (owner; Work groups: app admins only). Members get groupDismissed; the id answers 10010 from then on (IM types; a Basic group is simply deleted).", "session",
       [gid], "dismissed", {"type": "boolean"}, {"groupID": pgid}, True, G + ["NOT_ALLOWED", "NOT_A_MEMBER", "UNSUPPORTED_FOR_TYPE", "PERMISSION_DENIED"], ["group", "im"])
method("group.joinedList", "The groups the caller (or, for an admin, userID) is a member of, with their profiles; AVChatRoom groups are not listed.", "session",
       [param("userID", string)], "groups", profile_list, {}, {"groups": [profile_ex]}, ["UNAUTHORIZED", "PERMISSION_DENIED"], ["group", "im"])
method("group.getInfo", "Profiles of several groups at once (at most 100); ids that name no group come back in notFound, dismissed ones in dismissed.", "session",
       [param("groupIDs", {"type": "array", "items": string}, True)], "info", {"type": "object", "required": ["groups", "notFound", "dismissed"], "properties": {"groups": {"type": "array", "items": ref("GroupProfile")}, "notFound": {"type": "array", "items": string}, "dismissed": {"type": "array", "items": string}}},
       {"groupIDs": [pgid, "nope"]}, {"groups": [profile_ex], "notFound": ["nope"], "dismissed": []}, ["UNAUTHORIZED", "INVALID_PARAMETERS"], ["group", "im"])
method("group.setInfo", "Changes the profile (absent fields stay): name, introduction, notification, faceURL, custom and addOpt (group.types editProfile), allMuted (group.types mute). Members get groupInfoChanged with changeTypes (Tencent's 1 name, 2 introduction, 3 notification, 4 face, 6 custom, 8 shut-up-all) and, for allMuted, allMembersMuted.", "session",
       [gid, param("name", string), param("introduction", string), param("notification", string), param("faceURL", string), param("addOpt", {"enum": ["FORBID", "AUTH", "ANY"]}), param("allMuted", {"type": "boolean"}), param("custom", {"type": "object", "additionalProperties": string})],
       "group", ref("GroupProfile"), {"groupID": pgid, "notification": "Meeting on Friday"}, {**profile_ex, "notification": "Meeting on Friday"}, G + ["NOT_ALLOWED", "NOT_A_MEMBER", "UNSUPPORTED_FOR_TYPE", "INVALID_PARAMETERS", "PERMISSION_DENIED", "INVALID_INPUT_DATA"], ["group", "im"])
method("group.setReceiveOption", "The caller's message receive option in a group (members only): RECEIVE, NOT_RECEIVE (no newMessage events, live or on replay; every other event still comes) or RECEIVE_NOT_NOTIFY (delivered as RECEIVE: Guild sends no push notifications). Raises no event.", "session",
       [gid, param("option", {"enum": ["RECEIVE", "NOT_RECEIVE", "RECEIVE_NOT_NOTIFY"]}, True)], "set", {"type": "boolean"}, {"groupID": pgid, "option": "RECEIVE_NOT_NOTIFY"}, True, G + ["NOT_A_MEMBER"], ["group", "im"])
vparam = param("version", {"type": "integer"}, False, "The version this write is based on: if another write came first, 10056")
amap = {"type": "object", "additionalProperties": string}
method("group.initAttributes", "Replaces every attribute of an AVChatRoom group (the only type with attributes, seed 003; members only): at most 16 keys of 1-32 bytes, values at most 4 KB, 16 KB in all. At most 5 writes a second per group (10049). Members get groupAttributeChanged with the full map.", "session",
       [gid, param("attributes", amap, True), vparam], "attributes", attrs_schema, {"groupID": pgid, "attributes": {"mic1": "alice"}}, attrs_ex, G + ["NOT_A_MEMBER", "UNSUPPORTED_FOR_TYPE", "INVALID_PARAMETERS", "ATTRIBUTE_CONFLICT", "ATTRIBUTE_RATE_LIMITED"], ["group", "im"])
method("group.setAttributes", "Adds or changes attributes (members only), within the limits of group.initAttributes.", "session",
       [gid, param("attributes", amap, True), vparam], "attributes", attrs_schema, {"groupID": pgid, "attributes": {"mic1": "alice"}}, attrs_ex, G + ["NOT_A_MEMBER", "UNSUPPORTED_FOR_TYPE", "INVALID_PARAMETERS", "ATTRIBUTE_CONFLICT", "ATTRIBUTE_RATE_LIMITED"], ["group", "im"])
method("group.deleteAttributes", "Removes attributes by key; keys null or absent removes all (members only).", "session",
       [gid, param("keys", {"type": ["array", "null"], "items": string}), vparam], "attributes", attrs_schema, {"groupID": pgid, "keys": ["mic1"]}, {"attributes": {}, "version": 4}, G + ["NOT_A_MEMBER", "UNSUPPORTED_FOR_TYPE", "ATTRIBUTE_CONFLICT", "ATTRIBUTE_RATE_LIMITED"], ["group", "im"])
method("group.getAttributes", "A group's attributes (all, or the keys named) and their version (members only).", "session",
       [gid, param("keys", {"type": "array", "items": string})], "attributes", attrs_schema, {"groupID": pgid}, attrs_ex, G + ["NOT_A_MEMBER", "UNSUPPORTED_FOR_TYPE"], ["group", "im"])
method("group.memberList", "A page of members (limit 1-50, default 50) in join order, filtered by role (ALL, OWNER, ADMIN, COMMON). Start with nextSeq 0 and pass it back until 0 comes back: members who join meanwhile come at the end, none is skipped or repeated.", "session",
       [gid, param("filter", {"enum": ["ALL", "OWNER", "ADMIN", "COMMON"]}), param("nextSeq", {"type": "integer"}), param("limit", {"type": "integer"}, False, "Members per page, 1-50 (default 50)")], "page", {"type": "object", "required": ["members", "nextSeq"], "properties": {"members": {"type": "array", "items": ref("GroupMemberDetail")}, "nextSeq": {"type": "integer"}}},
       {"groupID": pgid, "filter": "ALL", "nextSeq": 0}, {"members": [member_ex], "nextSeq": 0}, G + ["NOT_A_MEMBER"], ["group", "im"])
method("group.membersInfo", "Details of the named members (at most 100; users who are not members are left out).", "session",
       [gid, param("userIDs", {"type": "array", "items": string}, True)], "members", {"type": "object", "required": ["members"], "properties": {"members": {"type": "array", "items": ref("GroupMemberDetail")}}},
       {"groupID": pgid, "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"]}, {"members": [member_ex]}, G + ["NOT_A_MEMBER", "INVALID_PARAMETERS"], ["group", "im"])
method("group.setMemberInfo", "Changes one member's nameCard (at most 50 bytes) and custom fields (the member themself, or the owner and admins), role (as group.setMemberRole) and muteUntil (ms since the epoch, 0 unmutes; as group.muteMember), in one transaction.", "session",
       [gid, uid, param("nameCard", string), param("role", {"enum": ["admin", "member"]}), param("muteUntil", {"type": "integer"}), param("custom", {"type": "object", "additionalProperties": string})], "set", {"type": "boolean"},
       {"groupID": pgid, "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "nameCard": "Bobby"}, True, G + ["NOT_A_MEMBER", "NOT_ALLOWED", "UNSUPPORTED_FOR_TYPE", "INVALID_PARAMETERS"], ["group", "im"])
method("group.muteMember", "Mutes a member for seconds (0 unmutes): owner and admins (admins only ordinary members; nobody the owner). The mute survives leaving and re-joining; a muted member's group.sendMessage gets 10017. Members get memberInfoChanged (not in Meeting or AVChatRoom).", "session",
       [gid, uid, param("seconds", {"type": "integer"}, True)], "mute", {"type": "object", "required": ["muteUntil"], "properties": {"muteUntil": {"type": "integer"}}},
       {"groupID": pgid, "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "seconds": 600}, {"muteUntil": 1795349302624}, G + ["NOT_A_MEMBER", "NOT_ALLOWED", "UNSUPPORTED_FOR_TYPE", "INVALID_PARAMETERS"], ["group", "im"])
method("group.setMemberRole", "Makes a member an admin, or an admin a member again: the owner only, in types with admins (Public, Meeting, Community). The owner's role changes only by transfer. Members get grantAdministrator or revokeAdministrator (Meeting: none).", "session",
       [gid, uid, param("role", {"enum": ["admin", "member"]}, True)], "set", {"type": "boolean"},
       {"groupID": pgid, "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "role": "admin"}, True, G + ["NOT_A_MEMBER", "NOT_ALLOWED", "UNSUPPORTED_FOR_TYPE", "INVALID_PARAMETERS"], ["group", "im"])
method("group.transferOwner", "Hands ownership to a member (the owner, or an app admin; AVChatRoom refuses). The old owner stays a member; members get groupInfoChanged with change type 5.", "session",
       [gid, uid], "group", ref("GroupInfo"), {"groupID": pgid, "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"}, {**group_example, "owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"}, G + ["NOT_A_MEMBER", "NOT_ALLOWED", "UNSUPPORTED_FOR_TYPE", "USER_NOT_FOUND", "PERMISSION_DENIED"], ["group", "im"])
method("group.sendMessage", "Sends a text message (1 byte to 12 KB) to the group's members as a newMessage event; returns its per-group sequence number. A muted member, or an ordinary member while allMuted, gets 10017.", "session",
       [gid, param("text", string, True)], "sent", {"type": "object", "required": ["messageSeq"], "properties": {"messageSeq": {"type": "integer"}}},
       {"groupID": pgid, "text": "Hello"}, {"messageSeq": 1}, G + ["NOT_A_MEMBER", "MUTED", "INVALID_PARAMETERS"], ["group", "im"])
groups_schema = {"type": "object", "required": ["groups"], "properties": {"groups": {"type": "array", "items": ref("GroupInfo")}}}
method("user.memberOfGroups", "The groups a user is a member of (the caller's own when userID is absent); empty, not an error, when none.", "session", [param("userID", string)], "groups", groups_schema, {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"}, {"groups": [group_example]}, ["UNAUTHORIZED"], ["user", "group"])
method("user.ownerOfGroups", "The groups a user owns; always a subset of user.memberOfGroups.", "session", [param("userID", string)], "groups", groups_schema, {"userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"}, {"groups": [group_example]}, ["UNAUTHORIZED"], ["user", "group"])
method("system.check", "SQLite's integrity check and Guild's group invariants (at most one owner, the owner is a member, member counts and user-group links agree). guildctl admin check.", "admin", [], "check",
       {"type": "object", "required": ["ok", "integrity", "violations"], "properties": {"ok": {"type": "boolean"}, "integrity": {"type": "array", "items": string}, "violations": {"type": "array", "items": string}}}, {}, {"ok": True, "integrity": ["ok"], "violations": []}, ["PERMISSION_DENIED"], ["system"])
kinds = ["groupCreated", "memberEnter", "memberLeave", "memberKicked", "memberInvited", "groupInfoChanged", "groupDismissed", "quitFromGroup", "groupAttributeChanged", "memberInfoChanged", "grantAdministrator", "revokeAdministrator", "receiveJoinApplication", "applicationProcessed", "allMembersMuted", "newMessage"]
method("events.subscribe", "Subscribes to group events. Returns the subscription id and the log's head seq; events then arrive as events.event notifications, never before this reply. With since, events after since are replayed first, then live ones follow with no gap and no duplicate. A user sees events of groups they belonged to at the time and events naming them; all: true (admins only) watches every group. A subscriber that falls more than the queue limit behind gets events.ended (LAGGED, lastSeq) and resubscribes with since: lastSeq.", "session",
       [param("groupIDs", {"type": "array", "items": string}, False, "Only these groups (topics group:<id>)"), param("topics", {"type": "array", "items": string}, False, "Only these topics, as area:id (e.g. group:g1); an unknown area is INVALID_INPUT_DATA"), param("kinds", {"type": "array", "items": {"enum": kinds}}, False, "Only these kinds"), param("since", {"type": "integer"}, False, "Replay events after this seq first"), param("all", {"type": "boolean"}, False, "Admins: every group")],
       "subscription", {"type": "object", "required": ["subscription", "seq"], "properties": {"subscription": string, "seq": {"type": "integer"}}}, {"since": 0}, {"subscription": "s1", "seq": 42},
       ["UNAUTHORIZED", "CURSOR_EXPIRED", "TOO_MANY_SUBSCRIPTIONS", "PERMISSION_DENIED", "INVALID_INPUT_DATA"], ["events"])
method("events.unsubscribe", "Ends a subscription of this connection.", "session", [param("subscription", string, True)], "unsubscribed", {"type": "boolean"}, {"subscription": "s1"}, True, ["SUBSCRIPTION_NOT_FOUND"], ["events"])

methods.sort(key=lambda m: m["name"])
profile_schema = {"type": "object", "required": ["userID", "isPseudo", "createdAt"], "properties": {
    "userID": string, "username": string, "email": string, "phone": string, "displayName": string, "fields": {"type": "object"},
    "isPseudo": {"type": "boolean"}, "createdAt": {"type": "integer", "description": "ms since the Unix epoch"}, "modifiedAt": {"type": "integer"}}}
doc = {
 "openrpc": "1.3.2",
 "info": {"title": "Guild", "version": "0.1.0", "description": "Guild's local identity, group and messaging daemon: JSON-RPC 2.0, one compact message per newline-terminated line, over a Unix domain socket (see protocol/framing.md). `x-auth` says who may call each method: anyone who can connect, a connection bound to a session (or an admin), or an admin (peer uid root or --admin-uid, from SO_PEERCRED). Errors carry data.reason (protocol/errors.md). `x-expensive` marks methods that run under admission bounds (SERVER_BUSY past them); `maxItems`/`maxProperties` bound list-valued params (TOO_MANY_ITEMS)."},
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
   "SystemStatus": {"type": "object", "required": ["version", "uptimeSeconds", "activation", "connections", "databasePath", "pid"], "properties": {"version": string, "uptimeSeconds": num, "activation": {"enum": ["socket-activated", "bound"]}, "connections": {"type": "integer"}, "databasePath": string, "pid": {"type": "integer"}, "writes": {"type": "object", "description": "Group commit since start: transactions committed (one fsync each) and the write operations they held", "required": ["commits", "operations"], "properties": {"commits": {"type": "integer"}, "operations": {"type": "integer"}}}}},
   "GroupInfo": {"type": "object", "required": ["groupID", "name", "type", "owner", "memberCount", "createdAt", "modifiedAt"], "properties": {"groupID": string, "name": string, "type": string, "owner": {"type": ["string", "null"]}, "memberCount": {"type": "integer"}, "createdAt": {"type": "integer"}, "modifiedAt": {"type": "integer"}}},
   "GroupMember": {"type": "object", "required": ["userID", "role", "joinedAt"], "properties": {"userID": string, "role": {"enum": ["owner", "admin", "member"]}, "joinedAt": {"type": "integer"}}},
   "MemberResult": {"type": "object", "required": ["userID", "result"], "properties": {"userID": string, "result": {"enum": ["SUCC", "INVALID", "PENDING", "FAIL", "OVERLIMIT"]}, "reason": string}},
   "Event": {"type": "object", "required": ["seq", "kind", "groupID", "users", "time"], "properties": {"seq": {"type": "integer", "description": "Global, gap-free sequence number"}, "kind": {"enum": kinds}, "groupID": string, "actor": {"type": ["string", "null"], "description": "The acting user; null when an admin without a session, or the system, acted"}, "byAdmin": {"type": "boolean"}, "users": {"type": "array", "items": string, "description": "The users the event is about"}, "changes": {"type": "object", "description": "What changed: name, type, owner, previousOwner, reason, introduction, notification, faceURL, custom, shutUpAll, addOpt, changeTypes (Tencent's numbers), attributes and version, muteUntil, muted, applicationID, accepted, message, messageSeq, text"}, "time": {"type": "integer"}}},
   "GroupProfile": {"type": "object", "required": ["groupID", "name", "type", "owner", "memberCount", "memberLimit", "introduction", "notification", "faceURL", "addOpt", "allMuted", "custom", "createdAt", "modifiedAt"], "properties": {"groupID": string, "name": string, "type": string, "owner": {"type": ["string", "null"]}, "memberCount": {"type": "integer"}, "memberLimit": {"type": ["integer", "null"]}, "introduction": string, "notification": string, "faceURL": string, "addOpt": {"enum": ["FORBID", "AUTH", "ANY"]}, "allMuted": {"type": "boolean"}, "custom": {"type": "object", "additionalProperties": string}, "createdAt": {"type": "integer"}, "modifiedAt": {"type": "integer"}}},
   "GroupMemberDetail": {"type": "object", "required": ["userID", "role", "joinedAt", "nameCard", "muteUntil", "receiveOption", "custom"], "properties": {"userID": string, "role": {"enum": ["owner", "admin", "member"]}, "joinedAt": {"type": "integer"}, "nameCard": string, "nickName": string, "muteUntil": {"type": "integer"}, "receiveOption": {"enum": ["RECEIVE", "NOT_RECEIVE", "RECEIVE_NOT_NOTIFY"]}, "custom": {"type": "object", "additionalProperties": string}}},
   "GroupApplication": {"type": "object", "required": ["applicationID", "groupID", "fromUser", "type", "requestMsg", "status", "handledMsg", "createdAt"], "properties": {"applicationID": {"type": "integer"}, "groupID": string, "fromUser": string, "type": {"enum": ["JOIN"]}, "requestMsg": string, "status": {"enum": ["PENDING", "ACCEPTED", "REFUSED"]}, "handledBy": {"type": ["string", "null"]}, "handledMsg": string, "createdAt": {"type": "integer"}, "handledAt": {"type": ["integer", "null"]}}},
   "GroupTypeRules": {"type": "object", "description": "Who-may fields list standings: owner, admin, member, nonMember, appAdmin (a peer with admin rights)", "properties": {k: {"type": "array", "items": string} for k in ["roles", "invite", "editProfile", "kick", "mute", "dismiss", "transferOwner", "setMemberRole", "handleApplications", "readMembers"]} | {"type": string, "kiiRules": {"type": "boolean"}, "join": {"enum": ["addedOnly", "byAddOpt"]}, "defaultAddOpt": {"enum": ["FORBID", "AUTH", "ANY"]}, "memberLimit": {"type": ["integer", "null"]}} | {k: {"type": "boolean"} for k in ["ownerMayQuit", "unreadCounts", "preJoinHistory", "memberEvents", "roleEvents", "muteEvents", "quitEvent", "inJoinedList", "attributes"]}},
   "Error": {"type": "object", "required": ["code", "message", "data"], "properties": {"code": {"type": "integer"}, "message": string, "data": {"type": "object", "required": ["reason"], "properties": {"reason": string, "field": string}}}}
 }}
}
print(json.dumps(doc, indent=2, ensure_ascii=False))
