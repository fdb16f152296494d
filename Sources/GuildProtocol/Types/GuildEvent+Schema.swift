// Generated from the event areas' declarations (EventAreas.declared in Sources/GuildCore/Events/EventAreas.swift, each
// area's fields) by `scripts/gen-contract`. Do not edit: change the source, then run that script again.

import GuildJSON

extension GuildEvent {
    /// The contract's event schemas: `Event`, one of the areas' events, and one schema per area.
    public static let schemas: KeyValuePairs<String, JSONValue> = [
        "Event": [
            "description": "An event as subscribers receive it: one of the areas' events, told apart by kind",
            "oneOf": [
                ["$ref": "#/components/schemas/GroupEvent"],
                ["$ref": "#/components/schemas/BucketEvent"],
                ["$ref": "#/components/schemas/ThingEvent"],
            ],
        ],
        "GroupEvent": [
            "description": "An event of the group area (topics group:<id>)",
            "properties": [
                "actor": ["description": "The acting user; absent when an admin without a session, or the system, acted.", "type": "string"],
                "byAdmin": ["description": "Whether the actor used admin rights (absent when not).", "type": "boolean"],
                "changes": [
                    "description":
                        "What changed: name, type, owner, previousOwner, reason, introduction, notification, faceURL, custom, shutUpAll, addOpt, changeTypes (Tencent's numbers), attributes and version, muteUntil, muted, applicationID, accepted, message, userDeleted; for messages messageSeq, msgID, priority, text, custom, cloudCustomData, atUserList, revoked; for unreadChanged unread, mentioned, readSeq.",
                    "type": "object",
                ],
                "groupID": ["description": "The group.", "type": "string"],
                "kind": [
                    "description": "What happened",
                    "enum": [
                        "groupCreated",
                        "memberEnter",
                        "memberLeave",
                        "memberKicked",
                        "memberInvited",
                        "groupInfoChanged",
                        "groupDismissed",
                        "quitFromGroup",
                        "groupAttributeChanged",
                        "memberInfoChanged",
                        "grantAdministrator",
                        "revokeAdministrator",
                        "receiveJoinApplication",
                        "applicationProcessed",
                        "allMembersMuted",
                        "newMessage",
                        "messageRevoked",
                        "unreadChanged",
                    ],
                ],
                "seq": ["description": "The global, gap-free sequence number.", "type": "integer"],
                "time": ["description": "When, ms since the Unix epoch.", "type": "integer"],
                "users": ["description": "The users the event is about.", "items": ["type": "string"], "type": "array"],
            ],
            "required": ["seq", "kind", "time", "groupID", "users"],
            "type": "object",
        ],
        "BucketEvent": [
            "description": "An event of the bucket area (topics bucket:<id>)",
            "properties": [
                "actor": ["description": "Who made the change; absent for an admin or an anonymous caller.", "type": "string"],
                "bucket": ["description": "The bucket; absent for a change to a scope's ACL.", "type": "string"],
                "granted": [
                    "description": "The ACL entries the change granted. In aclChanged.",
                    "items": [
                        "properties": ["action": ["type": "string"], "subject": ["type": "string"]],
                        "required": ["action", "subject"],
                        "type": "object",
                    ],
                    "type": "array",
                ],
                "kind": [
                    "description": "What happened", "enum": ["objectCreated", "objectUpdated", "objectDeleted", "bucketDeleted", "aclChanged"],
                ],
                "object": [
                    "description": "The object after the change, with its reserved fields. In objectCreated, objectUpdated.",
                    "type": "object",
                ],
                "objectID": ["description": "The object. In objectCreated, objectUpdated, objectDeleted.", "type": "string"],
                "revoked": [
                    "description": "The ACL entries the change revoked. In aclChanged.",
                    "items": [
                        "properties": ["action": ["type": "string"], "subject": ["type": "string"]],
                        "required": ["action", "subject"],
                        "type": "object",
                    ],
                    "type": "array",
                ],
                "scope": ["description": "The scope: app, user:<userID>, group:<groupID> or thing:<thingID>.", "type": "string"],
                "seq": ["description": "The global, gap-free sequence number.", "type": "integer"],
                "time": ["description": "When, ms since the Unix epoch.", "type": "integer"],
                "topic": ["description": "bucket:<scope>/<bucket>, or bucket:<scope> for a scope's ACL.", "type": "string"],
            ],
            "required": ["seq", "kind", "time", "topic", "scope"],
            "type": "object",
        ],
        "ThingEvent": [
            "description": "An event of the thing area (topics thing:<id>)",
            "properties": [
                "actions": ["description": "The command's actions, in order. In commandReceived.", "type": "array"],
                "commandID": ["description": "The command. In commandReceived, commandResult.", "type": "string"],
                "description": ["description": "The command's description. In commandReceived.", "type": "string"],
                "disabled": ["description": "Whether the thing is now disabled, when that changed. In thingUpdated.", "type": "boolean"],
                "dueAt": ["description": "When a schedule was due, ms since the Unix epoch. In triggerFired.", "type": "integer"],
                "eventSource": ["description": "What fired it: STATES, SCHEDULE or SCHEDULE_ONCE. In triggerFired.", "type": "string"],
                "firedByTriggerID": ["description": "The trigger that sent the command. In commandReceived.", "type": "string"],
                "firmwareVersion": ["description": "The thing's new firmware version, when it changed. In thingUpdated.", "type": "string"],
                "issuer": ["description": "Who sent the command: user:<userID> or group:<groupID>. In commandReceived.", "type": "string"],
                "kind": [
                    "description": "What happened",
                    "enum": [
                        "commandReceived",
                        "commandResult",
                        "thingStateChanged",
                        "thingConnected",
                        "thingDisconnected",
                        "thingOwnerAdded",
                        "thingOwnerRemoved",
                        "thingDeleted",
                        "thingUpdated",
                        "triggerSkipped",
                        "triggerFired",
                    ],
                ],
                "limit": ["description": "That bound's limit. In triggerSkipped.", "type": "integer"],
                "metadata": ["description": "The command's metadata. In commandReceived.", "type": "object"],
                "owner": [
                    "description": "The owner added or removed: user:<userID> or group:<groupID>. In thingOwnerAdded, thingOwnerRemoved.",
                    "type": "string",
                ],
                "parameters": ["description": "The parameters the trigger was given for its NOTIFY action. In triggerFired.", "type": "object"],
                "reason": [
                    "description": "The bound that stopped them: pendingCommands, firingRate or storageQuota. In triggerSkipped.",
                    "type": "string",
                ],
                "schema": ["description": "The command's schema name. In commandReceived.", "type": "string"],
                "schemaVersion": ["description": "The command's schema version. In commandReceived.", "type": "integer"],
                "seq": ["description": "The global, gap-free sequence number.", "type": "integer"],
                "state": [
                    "description": "The state the thing reported (null once pruned from its history). In thingStateChanged.",
                    "type": ["object", "null"],
                ],
                "thingID": [
                    "description":
                        "The thing (a commandResult names it only in its topic). In commandReceived, thingStateChanged, thingConnected, thingDisconnected, thingOwnerAdded, thingOwnerRemoved, thingDeleted, thingUpdated, triggerSkipped, triggerFired.",
                    "type": "string",
                ],
                "thingProperties": [
                    "description": "The thing's custom fields after the change, when they changed. In thingUpdated.",
                    "type": "object",
                ],
                "thingType": ["description": "The thing's new type, when it changed. In thingUpdated.", "type": "string"],
                "time": ["description": "When, ms since the Unix epoch.", "type": "integer"],
                "timestamp": ["description": "When the state was taken, ms since the Unix epoch. In thingStateChanged.", "type": "integer"],
                "title": ["description": "The command's title. In commandReceived.", "type": "string"],
                "topic": ["description": "thing:<thingID>.", "type": "string"],
                "triggerID": ["description": "The trigger that fired. In triggerFired.", "type": "string"],
                "triggerIDs": [
                    "description": "The triggers whose firing sent nothing. In triggerSkipped.",
                    "items": ["type": "string"],
                    "type": "array",
                ],
            ],
            "required": ["seq", "kind", "time", "topic"],
            "type": "object",
        ],
    ]
}
