// `app.js`, last part: start the live channel and show the view the
// address asks for.
startLayout();
window.addEventListener('hashchange', route);
// Chromium runs sandboxed frames in a process of their own and ends it with the last of them: a switch of component,
// whose view replaces the render's frame, waited for a new process (about a third of the switch). An empty sandboxed
// frame that never leaves keeps that process.
document.body.append(el('iframe', { id: 'frame-keeper', sandbox: '', srcdoc: '', hidden: true, tabindex: '-1', 'aria-hidden': 'true', title: 'kept empty' }));
connectLive();
refreshSidebar();
route();
