/// The one HTML page; every view is built by `app.js` from the JSON API.
enum IndexPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Graft Workbench</title>
        <link rel="icon" href="/assets/icon.svg">
        <link rel="stylesheet" href="/assets/app.css">
        <script src="/assets/app.js" defer></script>
        </head>
        <body>
        <header class="top">
          <a class="brand" href="#/plugins"><img src="/assets/icon.svg" alt="" width="20" height="20"> Graft Workbench</a>
          <nav>
            <a href="#/plugins" data-nav="plugins">Plugins</a>
            <a href="#/try" data-nav="try">Validators &amp; actions</a>
            <a href="#/flow" data-nav="flow" hidden>Flow</a>
            <a href="#/attach" data-nav="attach" hidden>Attached host</a>
            <a href="#/log" data-nav="log">Action log</a>
          </nav>
          <span id="live" class="live off" title="live updates">connecting…</span>
        </header>
        <div id="banners" aria-live="polite"></div>
        <main id="view"><p class="muted">Loading…</p></main>
        </body>
        </html>
        """#
}
