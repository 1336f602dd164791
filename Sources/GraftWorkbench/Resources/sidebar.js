// `app.js`, part 4: the sidebar — every plugin (in natural order, as the
// report sorts them) with its components, validators and actions, the files
// that failed or sit in quarantine first, and a filter. It lives beside the
// views, not in them: changing view keeps its filter and scroll, so back and
// forward return to where the tester was. The item the address names is
// marked current.
const sidebarState = { filter: sessionStorage.getItem('graft.sidebar.filter') || '', report: null, stories: null };

// A component's stories from `/api/stories` (its debugConfig, its plugin's, the story files'), or none.
function storiesOf(pluginID, component) {
  const found = ((sidebarState.stories && sidebarState.stories.components) || []).find(c => c.plugin === pluginID && c.component === component);
  return found ? found.stories : [];
}

// The name that reaches an entry: its bare name, or qualified by its plugin's id
// when another plugin answers the bare name (a clash, listed with the failures).
function entryName(plugin, code, key, version, failures) {
  const clashed = failures.some(f => f.path === plugin.path && f.code === code && f.key === key);
  return clashed ? `${plugin.id}/${key}@${version}` : `${key}@${version}`;
}

function sidebarLink(kind, name, text, title) {
  const href = kind === 'component' ? `#/component/${encodeURIComponent(name)}` : `#/try/${kind}/${encodeURIComponent(name)}`;
  return el('li', {}, el('a', { href, class: `side-link side-${kind}`, dataset: { kind, name }, title: title || '', text }));
}

function renderSidebar(report) {
  const aside = document.getElementById('sidebar');
  if (!aside) return;
  const scroll = aside.scrollTop;
  const failures = report.failures || [];
  const plugins = report.plugins || [];
  const filter = el('input', { type: 'search', id: 'sidebar-filter', class: 'side-filter', value: sidebarState.filter,
    placeholder: 'Filter…', 'aria-label': 'Filter the sidebar by plugin, component, validator or action',
    oninput: () => {
      sidebarState.filter = filter.value;
      sessionStorage.setItem('graft.sidebar.filter', filter.value);
      applySidebarFilter();
    } });
  const failed = failures.length ? el('details', { class: 'side-failures', open: true },
    el('summary', { text: `Failed (${failures.length})` }),
    el('ul', {}, failures.map(f => el('li', { class: 'side-failure', title: f.message,
      dataset: { code: f.code, search: `${f.path} ${f.code} ${f.key || ''}`.toLowerCase() } },
      el('code', { class: 'badge bad', text: f.code }), f.quarantined ? el('span', { class: 'badge quarantined', text: 'quarantined' }) : null,
      ' ', el('span', { class: 'path', text: (f.key ? `${f.key} · ` : '') + f.path.split('/').pop() }))))) : null;
  const groups = plugins.map(plugin => {
    const components = plugin.components.map(c => {
      const name = entryName(plugin, 'duplicate_component', c.key, c.version, failures);
      const entry = sidebarLink('component', name, name, c.description);
      // Its stories, each an entry of its own that opens the page with it.
      const stories = storiesOf(plugin.id, `${c.key}@${c.version}`).filter(s => s.source !== 'debugConfig');
      if (stories.length) {
        entry.append(el('ul', { class: 'side-stories', 'aria-label': `${name}: stories` }, stories.map(story => el('li', {},
          el('a', { href: `#/component/${encodeURIComponent(name)}?story=${encodeURIComponent(story.name)}`, class: 'side-link side-story',
            dataset: { kind: 'story', name: `${name} ${story.name}`, story: story.name, source: story.source },
            title: story.description || '', text: story.name })))));
      }
      return entry;
    });
    const validators = plugin.validators.map(v => {
      const name = entryName(plugin, 'duplicate_validator', v.name, v.version, failures);
      return sidebarLink('validator', name, name, v.description);
    });
    const actions = plugin.actions.map(a => {
      const name = entryName(plugin, 'duplicate_action', a.key, a.version, failures);
      return sidebarLink('action', name, name, a.description);
    });
    const search = [plugin.id, plugin.name, ...plugin.components.map(c => c.key), ...plugin.validators.map(v => v.name),
      ...plugin.actions.map(a => a.key)].join(' ').toLowerCase();
    return el('details', { class: 'side-plugin', open: true, dataset: { id: plugin.id, search } },
      el('summary', {}, el('span', { class: 'side-plugin-name', text: plugin.name }), ' ', el('code', { class: 'muted', text: plugin.id }),
        plugin.removed ? el('span', { class: 'badge quarantined side-removed', title: 'its file is gone: it serves the sessions still open, then unloads', text: 'removed' }) : null),
      components.length ? el('ul', { class: 'side-list', 'aria-label': `${plugin.name}: components` }, components) : null,
      validators.length ? el('ul', { class: 'side-list', 'aria-label': `${plugin.name}: validators` }, validators) : null,
      actions.length ? el('ul', { class: 'side-list', 'aria-label': `${plugin.name}: actions` }, actions) : null);
  });
  const none = el('p', { class: 'muted side-none', hidden: true });
  aside.replaceChildren(el('h2', { class: 'side-title', text: 'Plugins' }), filter, failed || '', none, ...groups);
  applySidebarFilter();
  markSidebarCurrent();
  aside.scrollTop = scroll;
  document.body.dataset.sidebarPlugins = String(plugins.length);
}

function applySidebarFilter() {
  const aside = document.getElementById('sidebar');
  const needle = sidebarState.filter.trim().toLowerCase();
  let shown = 0;
  for (const group of aside.querySelectorAll('.side-plugin')) {
    // A plugin matches by its own names; its entries match one by one.
    const own = needle === '' || group.dataset.id.toLowerCase().includes(needle) || group.querySelector('.side-plugin-name').textContent.toLowerCase().includes(needle);
    // An entry is shown when it matches or one of its stories does (a story's name holds its component's, so a
    // component that matches keeps its stories); a story comes after its entry, and shows it again.
    let entries = 0;
    for (const link of group.querySelectorAll('.side-link')) {
      const hit = own || link.dataset.name.toLowerCase().includes(needle);
      link.parentElement.hidden = !hit;
      if (!hit) continue;
      entries += 1;
      if (link.dataset.story !== undefined) link.parentElement.parentElement.parentElement.hidden = false;
    }
    group.hidden = !own && entries === 0;
    if (!group.hidden) shown += 1;
  }
  const failures = [...aside.querySelectorAll('.side-failure')];
  for (const item of failures) item.hidden = needle !== '' && !item.dataset.search.includes(needle);
  const failed = aside.querySelector('.side-failures');
  if (failed) {
    const matching = failures.filter(item => !item.hidden).length;
    failed.querySelector('summary').textContent = needle === '' ? `Failed (${failures.length})` : `Failed (${matching} of ${failures.length})`;
    failed.hidden = matching === 0;
  }
  const none = aside.querySelector('.side-none');
  if (none) {
    none.hidden = shown > 0 || !sidebarState.report || sidebarState.report.plugins.length === 0;
    none.textContent = `Nothing matches “${sidebarState.filter.trim()}”.`;
  }
}

// The entry the address names is the current one.
function markSidebarCurrent() {
  // A shared configuration (?inputs=…) is still the same entry, and
  // `#/component/paywall@1` is `#/component/paywall%401`.
  const [base, query] = location.hash.split('?');
  const hash = decodedPart(base);
  const story = new URLSearchParams(query || '').get('story');
  for (const link of document.querySelectorAll('#sidebar .side-link')) {
    const [href, linkQuery] = link.getAttribute('href').split('?');
    const same = hash !== null && decodedPart(href) === hash;
    // A story's entry is current when the page shows that story; its component's entry, whatever the story.
    const current = link.dataset.story ? same && new URLSearchParams(linkQuery).get('story') === story : same;
    if (current) link.setAttribute('aria-current', link.dataset.story ? 'true' : 'page');
    else link.removeAttribute('aria-current');
  }
}

async function refreshSidebar() {
  try {
    const [report, stories] = await Promise.all([api('GET', '/api/plugins'), api('GET', '/api/stories').catch(() => null)]);
    sidebarState.report = report;
    sidebarState.stories = stories;
    renderSidebar(sidebarState.report);
  } catch (error) { /* the views say why the report cannot be read */ }
}

window.addEventListener('hashchange', markSidebarCurrent);
// A swap can add, replace or remove plugins; a failed one can add a failure.
wb.handlers.swap.push(() => refreshSidebar());
