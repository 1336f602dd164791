// `app.js`, last part: start the live channel and show the view the
// address asks for.
startLayout();
window.addEventListener('hashchange', route);
connectLive();
refreshSidebar();
route();
