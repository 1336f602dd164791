/// A permission a plugin declares (graft.h's `graft.permissions/1`), with the
/// reason it gives the people who decide whether to grant it.
public struct PermissionRequest: Sendable, Hashable, CustomStringConvertible {
    public package(set) var permission: Permission
    public package(set) var reason: String

    package init(_ permission: Permission, reason: String) {
        self.permission = permission
        self.reason = reason
    }

    public var description: String { "\(permission) (\(reason))" }
}
