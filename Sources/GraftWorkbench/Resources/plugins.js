// `app.js`, part 3: the Plugins page — every plugin with its id, version,
// ABI, path and what it provides, and first the files that failed to load
// or sit in quarantine, with their codes and reasons.
function reportView(report, options) {
  const linked = !(options && options.remote);
  const failures = report.failures || [];
  const plugins = report.plugins || [];
  const list = el('div', { class: 'plugin-list', id: options && options.remote ? 'remote-plugin-list' : 'plugin-list' });
  const fragment = document.createDocumentFragment();
  for (const plugin of plugins) fragment.append(pluginCard(plugin, linked, failures));
  list.append(fragment);
  const failed = failures.length ? el('section', { class: 'failures', id: 'failures' },
    el('h2', { text: `Failed to load (${failures.length})` }),
    failures.map(f => el('div', { class: 'failure', dataset: { code: f.code } },
      el('div', { class: 'failure-head' },
        el('code', { class: 'badge bad', text: f.code }),
        f.quarantined ? el('span', { class: 'badge quarantined', text: 'quarantined' }) : null,
        el('span', { class: 'path', text: f.path })),
      el('p', { class: 'failure-message', text: f.message })))) : null;
  // A filter that hides every card says so, instead of leaving a blank page.
  const noMatch = el('p', { class: 'muted no-match', hidden: true });
  const filter = el('input', { type: 'search', class: 'filter', placeholder: 'Filter by id, name, component, validator or action…',
    'aria-label': 'Filter plugins',
    oninput: () => {
      const needle = filter.value.trim().toLowerCase();
      let shown = 0;
      for (const card of list.children) {
        card.hidden = needle !== '' && !card.dataset.search.includes(needle);
        if (!card.hidden) shown += 1;
      }
      noMatch.hidden = shown > 0 || plugins.length === 0;
      noMatch.textContent = `No plugin matches “${filter.value.trim()}”.`;
    } });
  const heading = linked ? el('h2', { id: 'loaded-heading', text: `Loaded (${plugins.length})` }) : null;
  return el('div', {},
    el('p', { class: 'summary', id: 'plugin-summary',
      text: `${plugins.length} plugin${plugins.length === 1 ? '' : 's'} loaded, ${failures.length} failed` }),
    report.sandbox ? el('p', { class: 'muted', id: 'sandbox-summary', text: `Sandbox: ${report.sandbox.summary}` }) : null,
    failed, heading, filter, noMatch, list);
}

function pluginCard(plugin, linked, failures = []) {
  // A component whose bare name another plugin answers is reached by its qualified name.
  const nameOf = c => entryName(plugin, 'duplicate_component', c.key, c.version, failures);
  const names = [plugin.id, plugin.name,
    ...plugin.components.map(c => `${c.key}@${c.version}`),
    ...plugin.validators.map(v => v.name), ...plugin.actions.map(a => a.key)];
  const status = [`ABI ${plugin.abi}`, plugin.status, plugin.mapped ? 'mapped' : 'maps on first use',
    plugin.canUnload ? 'can unload' : 'never unloaded'];
  if (plugin.removed) status.unshift('file removed: serves the sessions still open, then unloads');
  return el('article', { class: plugin.removed ? 'plugin removed' : 'plugin', dataset: { id: plugin.id, search: names.join(' ').toLowerCase() } },
    el('header', {},
      el('h3', {}, el('span', { class: 'plugin-name', text: plugin.name }), ' ',
        el('code', { class: 'plugin-id', text: plugin.id }), ' ', el('span', { class: 'version', text: plugin.version })),
      el('span', { class: 'meta', text: status.join(' · ') })),
    el('div', { class: 'path', text: plugin.path }),
    plugin.description ? el('p', { class: 'plugin-description', text: plugin.description }) : null,
    plugin.signer ? el('div', { class: 'provides signer' }, el('span', { class: 'label', text: 'signed by' }),
      el('span', { class: 'chip granted', title: `minisign key ${plugin.signer.keyID}`,
        text: `${plugin.signer.publisher} · key ${plugin.signer.keyID}` })) : null,
    plugin.components.length ? el('div', { class: 'provides' }, el('span', { class: 'label', text: 'components' }),
      plugin.components.map(c => linked
        ? el('a', { class: 'chip component-link', href: `#/component/${encodeURIComponent(nameOf(c))}`, text: nameOf(c) })
        : el('span', { class: 'chip', text: nameOf(c) }))) : null,
    plugin.validators.length ? el('div', { class: 'provides' }, el('span', { class: 'label', text: 'validators' }),
      plugin.validators.map(v => el('span', { class: 'chip', title: v.signature || 'generic',
        text: `${v.name}@${v.version} (${v.kind}${v.signature ? ' ' + v.signature : ''})` }))) : null,
    plugin.actions.length ? el('div', { class: 'provides' }, el('span', { class: 'label', text: 'actions' }),
      plugin.actions.map(a => el('span', { class: 'chip', text: `${a.key}@${a.version}` }))) : null,
    (plugin.permissions || []).length ? el('div', { class: 'provides permissions' }, el('span', { class: 'label', text: 'permissions' }),
      plugin.permissions.map(p => el('span', { class: `chip ${p.granted ? 'granted' : 'not-granted'}`, title: p.reason,
        text: `${p.permission} (${p.granted ? 'granted' : 'not granted'})` }))) : null,
    plugin.data ? el('div', { class: 'provides data-folder' }, el('span', { class: 'label', text: 'keeps' }),
      el('span', { class: `chip ${plugin.data.bytes >= plugin.data.limit ? 'not-granted' : 'granted'}`, title: plugin.data.folder,
        text: `${sizeText(plugin.data.bytes)} of ${sizeText(plugin.data.limit)}` })) : null,
    (plugin.sandboxDenied || []).length ? el('div', { class: 'provides sandbox-denied' },
      el('span', { class: 'label', text: 'sandbox refused' }),
      plugin.sandboxDenied.map(act => el('code', { class: 'badge bad', text: act }))) : null);
}

views.plugins = main => {
  main.append(el('h1', { text: 'Plugins' }));
  const body = el('div', {}, el('p', { class: 'muted', text: 'Loading the plugin report…' }));
  main.append(body);
  const load = async () => {
    try {
      const report = await api('GET', '/api/plugins');
      if (wb.view !== 'plugins') return;
      clear(body).append(reportView(report));
      wb.timings.pluginsShown = performance.now();
      document.body.dataset.pluginsShown = String(report.plugins.length);
    } catch (error) {
      clear(body).append(errorCard(error, 'The plugin report could not be read'));
    }
  };
  load();
  // A swap can add, replace or remove plugins: show the new report.
  return keyed(wb.handlers.swap, message => { if (message.outcome !== 'failed') load(); });
};
