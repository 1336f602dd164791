// `app.js`, part 10: the Attached host page (`--attach`) — a running host's
// plugins and its action log, live, through its debug endpoint.
views.attach = main => {
  main.append(el('h1', { text: 'Attached host' }));
  // Without --attach there is nothing to ask the server for: say how to attach.
  const notAttached = () => main.append(el('p', { class: 'notice', id: 'no-attach' },
    'This workbench is attached to no host. Start it with ', el('code', { text: '--attach SOCKET' }),
    ' to follow a running host’s plugins and action log.'));
  if (wb.info && !wb.info.attach) { notAttached(); return null; }
  if (!wb.info) {
    let stopped = false;
    api('GET', '/api/info').then(info => {
      wb.info = wb.info || info;
      if (stopped) return;
      if (!info.attach) notAttached(); else { clear(main); stopped = true; route(); }
    }).catch(error => { if (!stopped) banner('error', errorText(error)); });
    return () => { stopped = true; };
  }
  const status = el('p', { class: 'muted', id: 'attach-status', text: 'Connecting…' });
  const records = el('ol', { class: 'records', id: 'remote-records', tabindex: 0, 'aria-label': 'its action log' });
  const plugins = el('div', { id: 'remote-plugins' }, el('p', { class: 'muted', text: 'Asking for its plugins…' }));
  main.append(status, el('div', { class: 'flow-page' },
    el('div', { class: 'column wide' }, el('section', { class: 'card' }, el('div', { class: 'panel-head' }, el('h2', { text: 'Its action log' }),
      el('span', { class: 'muted', text: 'newest first' })), records)),
    el('div', { class: 'column side' }, el('section', { class: 'card' }, el('div', { class: 'panel-head' }, el('h2', { text: 'Its plugins' }),
      el('button', { type: 'button', class: 'small', text: 'refresh', onclick: () => loadPlugins() })), plugins))));

  function showStatus(state) {
    if (state.connected) status.textContent = `connected to ${state.socket || wb.info.attach}` + (state.host && state.host.pid ? ` (pid ${state.host.pid}, graft ${state.host.host})` : '');
    else if (state.error) status.textContent = `not connected: ${state.error.code}: ${state.error.message} (retrying every second)`;
    status.className = state.connected ? 'ok' : 'bad';
  }
  function add(list) {
    for (const record of list) records.prepend(recordRow(record));
    while (records.children.length > 500) records.lastChild.remove();
  }
  async function loadPlugins() {
    try { const answer = await api('GET', '/api/attach/plugins'); clear(plugins).append(reportView(answer.report, { remote: true })); }
    catch (error) { clear(plugins).append(errorCard(error, 'Its plugins could not be read')); }
  }
  api('GET', '/api/attach').then(state => { showStatus(state); add(state.records || []); }).catch(error => {
    status.textContent = errorText(error);
  });
  loadPlugins();
  return keyed(wb.handlers.attached, message => {
    if (message.records) add(message.records);
    if ('connected' in message) showStatus(message);
  });
};
