import GraftHost

extension FlowRunner {
    /// The whole run as `graft run --json` prints it:
    /// `{"screens": [...], "transcript": [...], "warnings": [...], "variables": {...}}`.
    /// `screens` lists each visit to a screen in order, with the last
    /// rendering of each of its instances. Timestamps are left out unless asked
    /// for, so the same run prints the same JSON.
    public func json(includingTimestamps: Bool = false) -> GraftValue {
        .object([
            "screens": .list(visits.map(\.json)),
            "transcript": .list(transcript.map { $0.json(includingTime: includingTimestamps) }),
            "warnings": .list(warnings.map(\.json)),
            "variables": .object(variables),
        ])
    }

    /// One stay on a screen and the last thing each of its instances rendered.
    private struct Visit {
        var screen: String
        var renders: [RenderRecord] = []

        var json: GraftValue {
            .object([
                "screen": .string(screen),
                "instances": .list(renders.map { render in
                    .object([
                        "instance": .string(render.instance), "component": .string(render.component.description),
                        "mediaType": .string(render.rendering.mediaType.rawValue), "output": .string(render.rendering.text),
                        "placeholder": .bool(render.isPlaceholder),
                    ])
                }),
            ])
        }
    }

    private var visits: [Visit] {
        guard screen != nil, let first = flow.screens.first else { return [] }
        var visits = [Visit(screen: first.id)]
        for entry in transcript {
            switch entry.kind {
            case .navigation(let navigation):
                visits.append(Visit(screen: navigation.to))
            case .render(let render):
                let last = visits.count - 1
                if let index = visits[last].renders.firstIndex(where: { $0.instance == render.instance }) {
                    visits[last].renders[index] = render
                } else {
                    visits[last].renders.append(render)
                }
            default:
                break
            }
        }
        return visits
    }
}
