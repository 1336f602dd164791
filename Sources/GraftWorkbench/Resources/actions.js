// `app.js`, part 7: the actions panel — the action log streaming live
// (instance, event, payload, actions run and their results, warnings),
// newest first, with filters. The Component page scopes it to its
// component; the Action log page shows everything.
function recordRow(record) {
  const what = [];
  if (record.type === 'event') {
    what.push(el('span', { class: 'event-name', text: record.event }), ' ',
      el('code', { class: 'payload', text: json(record.payload ?? null) }),
      record.origin && record.origin !== 'component' ? el('span', { class: 'muted', text: ` (${record.origin})` }) : null);
  } else if (record.type === 'action') {
    const action = record.action;
    what.push(el('span', { class: action.ok ? 'ok' : 'bad', text: `${action.name} ${action.ok ? 'ran' : 'failed'}` }), ' ',
      el('code', { class: 'payload', text: json(action.params) }),
      action.error ? el('span', { class: 'bad', text: ` ${action.error}` }) : null,
      Object.keys(action.variablesSet || {}).length ? el('span', { class: 'muted', text: ` set ${json(action.variablesSet)}` }) : null,
      action.result !== undefined ? el('span', { class: 'muted', text: ` → ${json(action.result)}` }) : null);
  } else if (record.type === 'validation') {
    const v = record.validation;
    what.push(el('span', { class: v.valid ? 'ok' : 'bad', text: `${v.validator}: ${v.valid ? 'valid' : 'invalid'}` }), ' ',
      el('code', { text: json(v.value) }), v.message ? el('span', { class: 'muted', text: ` ${v.message}` }) : null);
  } else if (record.type === 'swap') {
    what.push(el('span', { text: record.swap.summary }));
  }
  return el('li', { class: `record ${record.type}`, dataset: { type: record.type, event: record.event || '', instance: record.instance || '' } },
    el('span', { class: 'time', text: (record.time || '').slice(11, 23) }),
    el('span', { class: `kind ${record.type}`, text: record.type }),
    el('span', { class: 'who', text: [record.instance, record.component].filter(Boolean).join(' · ') || record.plugin || '' }),
    el('span', { class: 'what' }, what),
    warningList(record.warnings));
}

function actionsPanel(scope) {
  const fields = {};
  const input = (key, placeholder, value) => fields[key] = el('input', { type: 'text', class: 'log-filter', placeholder, value: value || '',
    dataset: { key }, 'aria-label': `only records of this ${key}`, oninput: redraw });
  const type = el('select', { class: 'log-filter', 'aria-label': 'only records of this kind', onchange: redraw },
    ['all', 'event', 'action', 'validation', 'warning', 'swap'].map(t => el('option', { value: t, text: t === 'all' ? 'every kind' : t })));
  // Focusable, so that a keyboard can scroll it.
  const list = el('ol', { class: 'records', id: 'records', tabindex: 0, 'aria-label': 'action records' });
  const count = el('span', { class: 'muted', id: 'record-count' });
  const node = el('section', { class: 'card actions-panel', id: 'actions-panel' },
    el('div', { class: 'panel-head' }, el('h2', { text: 'Actions' }), count,
      el('button', { type: 'button', class: 'small', text: 'clear', onclick: () => { wb.log.length = 0; redraw(); } })),
    el('div', { class: 'filters' }, type,
      input('component', 'component', scope && scope.component), input('instance', 'instance'),
      input('event', 'event'), input('plugin', 'plugin')),
    list);

  function matches(record) {
    if (type.value !== 'all' && record.type !== type.value) return false;
    for (const [key, field] of Object.entries(fields)) {
      const wanted = field.value.trim();
      if (!wanted) continue;
      const have = String(record[key] || '');
      if (key === 'component' ? !(have === wanted || have.startsWith(`${wanted}@`)) : have !== wanted) return false;
    }
    return true;
  }

  function redraw() {
    const shown = wb.log.filter(matches).slice(-300).reverse();
    clear(list).append(...shown.map(recordRow));
    count.textContent = `${shown.length} shown`;
  }

  const stop = keyed(wb.handlers.log, message => {
    const fresh = message.records.filter(matches);
    if (!fresh.length) return;
    for (const record of fresh) list.prepend(recordRow(record));
    while (list.children.length > 300) list.lastChild.remove();
    count.textContent = `${list.children.length} shown`;
  });
  // What happened before this page opened (the log keeps it).
  api('GET', '/api/log?last=300').then(answer => {
    const known = new Set(wb.log.map(r => r.seq));
    const older = answer.records.filter(r => !known.has(r.seq));
    wb.log.unshift(...older);
    wb.log.sort((a, b) => a.seq - b.seq);
    redraw();
  }).catch(() => {});
  redraw();
  // Narrows the panel to one instance (a component page's own session:
  // records of a flow's instance of the same component are not its own).
  const scopeTo = instance => { fields.instance.value = instance; redraw(); };
  return { node, stop, scopeTo };
}

views.log = main => {
  main.append(el('h1', { text: 'Action log' }),
    el('p', { class: 'muted', text: 'Every event, action, validation and hot swap this workbench saw, live.' }));
  const panel = actionsPanel({});
  main.append(panel.node);
  return panel.stop;
};
