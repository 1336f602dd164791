import CGraft
import GraftSupport

extension DescriptorReader {
    static let maximumPermissions = Int(GRAFT_MAX_PERMISSIONS)
    static let maximumPorts = Int(GRAFT_MAX_PORTS)

    /// Every permission the plugin declares (`graft.permissions/1`), each
    /// checked: a known kind, its ports or folder, a reason people can read.
    mutating func read(_ permissions: UnsafePointer<graft_permissions_t>) -> [PermissionRequest] {
        guard let count = permissions.pointee.count, let get = permissions.pointee.get else {
            problem(.invalidDescriptor, "the permissions have a NULL count or get function.", symbol: GRAFT_PERMISSIONS_ID)
            return []
        }
        let declared = Int(count(permissions))
        guard declared <= Self.maximumPermissions else {
            problem(.invalidDescriptor, "declares \(declared) permissions; the most is \(Self.maximumPermissions).", symbol: GRAFT_PERMISSIONS_ID)
            return []
        }
        var requests: [PermissionRequest] = []
        for index in 0..<declared {
            guard let permission = get(permissions, UInt32(index)) else {
                problem(.invalidDescriptor, "permission #\(index) is NULL although count() is \(declared).", symbol: GRAFT_PERMISSIONS_ID)
                continue
            }
            if let request = readPermission(permission.pointee, index: index), !requests.contains(request) { requests.append(request) }
        }
        return requests
    }

    private mutating func readPermission(_ p: graft_permission_t, index: Int) -> PermissionRequest? {
        let label = "permission #\(index)"
        func refuse(_ message: String) -> PermissionRequest? {
            problem(.invalidDescriptor, "\(label) \(message)", symbol: GRAFT_PERMISSIONS_ID)
            return nil
        }
        guard let reason = String(plugin: p.reason), !reason.isEmpty else { return refuse("has no reason; say why the plugin needs it.") }
        guard reason.utf8.count <= 512 else { return refuse("has a reason of \(reason.utf8.count) bytes; the most is 512.") }
        guard reason == reason.escapingControls else { return refuse("has control characters in its reason.") }
        let permission: Permission
        switch Int32(p.kind) {
        case GRAFT_PERMISSION_CONNECT:
            let count = Int(p.port_count)
            guard count >= 1, count <= Self.maximumPorts, let ports = p.ports else {
                return refuse("asks for TCP connections with \(count) ports (NULL or out of 1...\(Self.maximumPorts)).")
            }
            let list = (0..<count).map { ports[$0] }
            guard !list.contains(0) else { return refuse("names port 0.") }
            permission = .connect(ports: Array(Set(list)).sorted())
        case GRAFT_PERMISSION_NETWORK:
            permission = .anyNetwork
        case GRAFT_PERMISSION_READ:
            guard let path = String(plugin: p.path), path.hasPrefix("/"), path.utf8.count <= 4096, path == path.escapingControls else {
                return refuse("asks to read a folder whose path is NULL, relative, longer than 4096 bytes or holds control characters.")
            }
            permission = .read(folder: path)
        case GRAFT_PERMISSION_DATA:
            permission = .dataFolder
        default:
            return refuse("has kind \(p.kind), which graft.h does not define.")
        }
        return PermissionRequest(permission, reason: reason)
    }
}
