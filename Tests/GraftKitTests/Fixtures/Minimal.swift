import GraftKit

/// A component that keeps every default of ``CustomComponent``.
final class Minimal: CustomComponent {
    func render(_ request: RenderRequest) -> Rendering {
        Rendering(text: "minimal ✓", mediaType: .plain)
    }
}
