import CGraft

/// The factory ids, straight from graft.h's `GRAFT_*_FACTORY_ID` macros.
enum FactoryID {
    static let component: String = GRAFT_COMPONENT_FACTORY_ID
    static let validator: String = GRAFT_VALIDATOR_FACTORY_ID
    static let action: String = GRAFT_ACTION_FACTORY_ID
    static let permissions: String = GRAFT_PERMISSIONS_ID
    static let stories: String = GRAFT_STORIES_ID
}
