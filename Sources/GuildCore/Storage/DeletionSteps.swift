/// What the areas that keep records of users or groups do to them when one is deleted, each step in the
/// deletion's transaction. An area with such records adds its step here: the rules' third list, beside the
/// properties of ``Transaction`` and ``EventAreas/declared``.
public enum DeletionSteps {
    /// Run by ``UserService`` when a user is deleted.
    public static let user: [UserDeletionStep] = [
        GroupService.removeDeletedUser, ObjectService.removeDeletedUser, ThingService.removeDeletedUser,
    ]

    /// Run by ``GroupService`` when a group is deleted.
    public static let group: [GroupDeletionStep] = [ObjectService.removeDeletedGroup, ThingService.removeDeletedGroup]
}
