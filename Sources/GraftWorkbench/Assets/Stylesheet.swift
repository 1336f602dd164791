/// `app.css`: one readable sheet, no web fonts, no external images.
enum Stylesheet {
    static let css = #"""
        :root { --ink: #1b2420; --muted: #65726b; --line: #d9e0dc; --paper: #f6f8f7; --card: #fff; --accent: #2f6b4a;
                --bad: #b3261e; --bad-bg: #fdecea; --ok: #1e7a3c; --warn: #8a5a00; --warn-bg: #fff4d6; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--paper); }
        code, pre, .path, .payload { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; }
        a { color: var(--accent); }
        .top { display: flex; align-items: center; gap: 24px; padding: 10px 20px; background: #1f3b2d; color: #eaf5ed; position: sticky; top: 0; z-index: 2; }
        .brand { color: #fff; font-weight: 600; text-decoration: none; display: flex; align-items: center; gap: 8px; }
        nav { display: flex; gap: 4px; flex: 1; }
        nav a { color: #cfe5d6; text-decoration: none; padding: 4px 10px; border-radius: 6px; }
        nav a.current, nav a:hover { background: #2f5a43; color: #fff; }
        .live { font-size: 12px; padding: 2px 8px; border-radius: 10px; }
        .live.on { background: #8fd694; color: #123; } .live.off { background: #6b3a36; color: #fff; }
        main { padding: 16px 20px 40px; max-width: 1500px; margin: 0 auto; }
        h1 { font-size: 20px; margin: 4px 0 12px; } h2 { font-size: 15px; margin: 0 0 8px; } h3 { font-size: 13px; margin: 10px 0 4px; }
        .muted { color: var(--muted); } .ok { color: var(--ok); font-weight: 600; } .bad { color: var(--bad); font-weight: 600; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; margin-bottom: 12px; }
        #banners { position: sticky; top: 44px; z-index: 3; }
        .banner { display: flex; gap: 12px; align-items: flex-start; padding: 10px 20px; border-bottom: 1px solid var(--line); }
        .banner.error { background: var(--bad-bg); color: var(--bad); font-weight: 600; }
        .banner.info { background: #e8f4ec; color: #17452c; }
        .banner-text { flex: 1; } .banner-close { border: 0; background: transparent; font-size: 18px; cursor: pointer; color: inherit; }
        .summary { font-weight: 600; }
        .filter { width: 100%; padding: 7px 10px; margin: 6px 0 10px; border: 1px solid var(--line); border-radius: 6px; }
        .plugin-list { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 10px; }
        .plugin { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
        .plugin header { display: flex; justify-content: space-between; gap: 8px; flex-wrap: wrap; }
        .plugin h3 { margin: 0; font-size: 14px; } .plugin .meta { color: var(--muted); font-size: 12px; }
        .plugin .path { color: var(--muted); word-break: break-all; margin: 2px 0 6px; font-size: 12px; }
        .version { color: var(--muted); }
        .provides { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; margin-top: 4px; }
        .label { color: var(--muted); font-size: 12px; width: 74px; }
        .chip { display: inline-block; padding: 1px 8px; border-radius: 10px; background: #eef3f0; border: 1px solid var(--line); font-size: 12px; text-decoration: none; }
        a.chip { background: #e3f1e8; color: #1c5235; }
        .failures { background: var(--bad-bg); border: 1px solid #f3c2bd; border-radius: 8px; padding: 10px 12px; margin-bottom: 12px; }
        .failure { padding: 6px 0; border-top: 1px solid #f3c2bd; } .failure:first-of-type { border-top: 0; }
        .failure-head { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
        .failure-message { margin: 4px 0 0; }
        .badge { padding: 1px 7px; border-radius: 4px; font-size: 12px; }
        .badge.bad { background: var(--bad); color: #fff; } .badge.quarantined { background: #4a2b7a; color: #fff; }
        .component-page, .flow-page { display: grid; grid-template-columns: minmax(300px, 380px) 1fr; gap: 12px; align-items: start; }
        .flow-page { grid-template-columns: 1fr minmax(320px, 460px); }
        .two-columns { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; align-items: start; }
        .control { display: grid; gap: 3px; margin-bottom: 10px; }
        .control label { font-weight: 600; } .type { color: var(--muted); font-weight: 400; font-size: 12px; }
        input[type=text], input[type=number], input[type=search], select, textarea { padding: 5px 8px; border: 1px solid #c5cfc9; border-radius: 5px; font: inherit; }
        textarea { font-family: ui-monospace, Menlo, monospace; }
        button { padding: 5px 12px; border: 1px solid #2f6b4a; background: #2f6b4a; color: #fff; border-radius: 5px; cursor: pointer; font: inherit; }
        button.small { padding: 1px 8px; background: #fff; color: var(--accent); }
        .control input[type=checkbox] { justify-self: start; width: 18px; height: 18px; }
        .list-row { display: flex; gap: 4px; margin-bottom: 4px; } .list-row input { flex: 1; }
        .interaction-buttons, .emit-row, .interact-row, .form-row { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 8px; align-items: center; }
        .interaction-button { background: #fff; color: var(--accent); }
        .emit-row .payload { flex: 1; min-width: 120px; }
        .note { color: var(--muted); min-height: 1.2em; margin: 4px 0 0; }
        .canvas-head, .panel-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; margin-bottom: 6px; }
        .canvas { border: 1px dashed #b9c6be; border-radius: 6px; min-height: 120px; background:
                  repeating-conic-gradient(#f2f5f3 0% 25%, #fff 0% 50%) 50% / 16px 16px; }
        .render-frame { width: 100%; height: 280px; border: 0; background: #fff; display: block; }
        .canvas { position: relative; }
        .render-frame.incoming { position: absolute; top: 0; left: 0; visibility: hidden; }
        .render-text { margin: 0; padding: 12px; white-space: pre-wrap; background: #fff; min-height: 120px; }
        .error-card { margin: 12px; padding: 12px 14px; border: 1px solid #f3c2bd; border-left: 5px solid var(--bad); background: var(--bad-bg); border-radius: 6px; }
        .error-card .error-code { display: inline-block; margin-left: 8px; color: var(--bad); font-weight: 600; }
        .error-card p { margin: 6px 0 0; }
        .warnings { list-style: none; padding: 0; margin: 8px 0 0; }
        .warning { background: var(--warn-bg); color: var(--warn); padding: 3px 8px; border-radius: 4px; margin-top: 3px; font-size: 12.5px; }
        .filters { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 8px; } .log-filter { width: 130px; }
        .records, .transcript { list-style: none; padding: 0; margin: 0; max-height: 520px; overflow: auto; }
        .record, .entry { display: grid; grid-template-columns: 86px 78px minmax(120px, 220px) 1fr; gap: 8px; padding: 5px 4px; border-top: 1px solid #edf1ef; font-size: 12.5px; }
        .entry { display: block; }
        .record .warnings { grid-column: 1 / -1; margin: 0; }
        .kind { font-size: 11px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); }
        .kind.event { color: #1c5bb3; } .kind.action { color: #7a3db3; } .kind.validation { color: #8a5a00; } .kind.swap { color: #1e7a3c; } .kind.warning { color: var(--bad); }
        .who { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .event-name { font-weight: 600; }
        .fields { border-collapse: collapse; width: 100%; } .fields td { padding: 3px 6px; border-top: 1px solid #edf1ef; vertical-align: top; }
        .params { display: grid; gap: 6px; margin: 6px 0; } .param { display: grid; gap: 2px; }
        .result { margin-top: 8px; white-space: pre-wrap; }
        .flow-instance .render-frame { height: 160px; }
        @media (max-width: 900px) { .component-page, .flow-page, .two-columns { grid-template-columns: 1fr; } }
        """#
}
