import CGraft
@_exported import GraftTypes

extension ContainerSize {
    init(_ size: graft_size_t) {
        self.init(width: size.width, height: size.height)
    }
}
