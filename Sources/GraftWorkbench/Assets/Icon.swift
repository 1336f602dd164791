/// The favicon and header mark: a graft, a branch joined to a stem.
enum Icon {
    static let svg = #"""
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f3b2d"/><path d="M16 28V14M16 18l-7-7M16 14l6-6" stroke="#8fd694" stroke-width="3" stroke-linecap="round" fill="none"/><circle cx="9" cy="11" r="3" fill="#c6f0c9"/><circle cx="22" cy="8" r="3" fill="#c6f0c9"/></svg>
        """#
}
