// `app.js`, part 5: forms built from declared fields — one typed, labelled
// control per field, checked against its type before anything is sent —
// and the docs panel of a component's contract.
function sampleOf(type) {
  return { string: '', number: 0, boolean: false, list: [], object: {} }[type] ?? null;
}

function parseItem(text) {
  const trimmed = text.trim();
  if (/^(-?\d|true$|false$|null$|\[|\{|")/.test(trimmed)) {
    try { return JSON.parse(trimmed); } catch (e) { /* plain text */ }
  }
  return text;
}

// One control per typed input: text, number, toggle, list editor (and
// JSON for anything else), each with its label. `changed` runs on every
// edit; `prefix` keeps ids apart where a page has several forms.
function control(field, value, changed, prefix = 'input') {
  const id = `${prefix}-${field.key}`;
  let read, editor;
  let present = value !== undefined;
  const touch = () => { present = true; changed(); };
  if (field.type === 'string') {
    editor = el('input', { id, type: 'text', value: value ?? '', oninput: touch });
    read = () => editor.value;
  } else if (field.type === 'number') {
    editor = el('input', { id, type: 'number', step: 'any', value: value ?? '', oninput: touch });
    // Typed text that is no number the browser can hold (1e400, "1e") leaves the value empty with
    // badInput set: read as NaN, which typeProblem refuses, never as an empty field (JSON's null).
    read = () => editor.validity.badInput ? Number.NaN : editor.value === '' ? null : Number(editor.value);
  } else if (field.type === 'boolean') {
    editor = el('input', { id, type: 'checkbox', checked: value === true, onchange: touch });
    read = () => editor.checked;
  } else if (field.type === 'list') {
    const rows = el('div', { class: 'list-items' });
    const addRow = item => {
      const input = el('input', { type: 'text', class: 'list-item', 'aria-label': `${field.key}, an item`,
        value: typeof item === 'string' ? item : json(item), oninput: touch });
      const row = el('div', { class: 'list-row' }, input,
        el('button', { type: 'button', class: 'small', title: 'remove', 'aria-label': `remove this ${field.key} item`, text: '−',
          onclick: () => { row.remove(); touch(); } }));
      rows.append(row);
      return input;
    };
    for (const item of Array.isArray(value) ? value : []) addRow(item);
    editor = el('div', { class: 'list-editor', id, role: 'group', 'aria-label': field.key }, rows,
      el('button', { type: 'button', class: 'small add-item', text: '+ item', 'aria-label': `add a ${field.key} item`,
        onclick: () => { addRow('').focus(); touch(); } }));
    read = () => [...rows.querySelectorAll('.list-item')].map(input => parseItem(input.value));
  } else {
    editor = el('textarea', { id, rows: 3, text: value === undefined ? '' : pretty(value), oninput: touch });
    read = () => { try { return JSON.parse(editor.value); } catch (e) { return editor.value; } };
  }
  const problem = el('small', { class: 'bad control-problem', id: `${id}-problem`, role: 'alert' });
  const node = el('div', { class: 'control', dataset: { key: field.key, type: field.type } },
    el(field.type === 'list' ? 'span' : 'label', { for: field.type === 'list' ? null : id, class: 'control-label' },
      el('span', { class: 'control-key', text: field.key }), ' ', el('span', { class: 'type', text: field.type })),
    editor,
    field.description ? el('small', { class: 'muted', text: field.description }) : null, problem);
  // Says what is wrong with the control's value (or nothing), beside it.
  const mark = text => {
    problem.textContent = text || '';
    if (text) editor.setAttribute('aria-invalid', 'true'); else editor.removeAttribute('aria-invalid');
    editor.setAttribute('aria-describedby', problem.id);
  };
  return { key: field.key, node, mark, read: () => present ? read() : undefined };
}

// What is wrong with `value` for a declared field, or null.
function typeProblem(field, value) {
  const fits = {
    string: v => typeof v === 'string', number: v => typeof v === 'number' && Number.isFinite(v),
    boolean: v => typeof v === 'boolean', list: Array.isArray,
    object: v => v !== null && typeof v === 'object' && !Array.isArray(v),
  }[field.type];
  return !fits || fits(value) ? null : `${field.key} must be a ${field.type}`;
}

// A form built from declared fields (an interaction's data, an event's
// payload): a labelled, typed control per field, starting from a sample of
// its type, checked against the types before anything is sent. Free JSON
// stays behind "JSON" for what the fields cannot say.
function fieldForm(prefix, fields, submitText, submit) {
  const controls = fields.map(f => control(f, sampleOf(f.type), () => {}, prefix));
  const problems = el('p', { class: 'bad form-problems', role: 'alert' });
  const raw = el('textarea', { class: 'raw-json', rows: 2, 'aria-label': `${submitText}: JSON instead of the fields` });
  const advanced = el('details', { class: 'advanced' }, el('summary', { text: 'JSON' }), raw);
  function read() {
    if (advanced.open && raw.value.trim()) {
      try { return { value: JSON.parse(raw.value) }; } catch (e) { return { problem: 'the JSON is not valid' }; }
    }
    if (!fields.length) return { value: null };
    const value = {};
    const wrong = [];
    fields.forEach((field, i) => {
      value[field.key] = controls[i].read();
      const problem = typeProblem(field, value[field.key]);
      if (problem) wrong.push(problem);
    });
    return wrong.length ? { problem: wrong.join('; ') } : { value };
  }
  return el('form', { class: 'field-form', dataset: { form: prefix }, onsubmit: event => {
    event.preventDefault();
    const result = read();
    problems.textContent = result.problem || '';
    if (!result.problem) submit(result.value);
  } }, controls.map(c => c.node),
  el('div', { class: 'form-row' }, el('button', { type: 'submit', class: 'form-submit', text: submitText }), advanced), problems);
}

// The docs panel: what the component is, who ships it, what it takes and
// says, what it can be asked, and what its plugin may touch.
function docsView(contract, plugin) {
  const fieldsTable = fields => fields.length ? el('table', { class: 'fields' }, fields.map(f =>
    el('tr', {}, el('td', {}, el('code', { text: f.key })), el('td', { class: 'type', text: f.type }),
      el('td', { class: 'muted', text: f.description || '' })))) : el('p', { class: 'muted', text: 'none' });
  const spelled = fields => ['{', fields.map((p, i) => [i ? ', ' : '', el('code', { text: p.key }), `: ${p.type}`]), '}'];
  const described = item => item.description ? el('span', { class: 'muted', text: ` — ${item.description}` }) : null;
  const interactions = contract.interactions || [];
  const permissions = (plugin && plugin.permissions) || [];
  const permissionState = p => p.granted === undefined ? 'requested' : p.granted ? 'granted' : 'not granted';
  return el('section', { class: 'card docs contract', id: 'contract' },
    el('div', { class: 'docs-head' },
      el('h2', { id: 'docs-name', text: contract.name || contract.key }),
      el('code', { class: 'muted', text: contract.reference || `${contract.key}@${contract.version}` })),
    contract.description ? el('p', { id: 'docs-description', text: contract.description }) : null,
    el('dl', { class: 'docs-facts', id: 'docs-facts' },
      el('dt', { text: 'Plugin' }), el('dd', {}, plugin ? [plugin.name, ' ', el('code', { text: plugin.id }),
        plugin.description ? el('span', { class: 'muted', id: 'docs-plugin-description', text: ` — ${plugin.description}` }) : null] : '(not loaded)'),
      el('dt', { text: 'Vendor' }), el('dd', { text: (plugin && plugin.vendor) || '—' }),
      el('dt', { text: 'Signed by' }), el('dd', { id: 'docs-signer',
        text: plugin && plugin.signer ? `${plugin.signer.publisher} (key ${plugin.signer.keyID})` : 'not signed' }),
      el('dt', { text: 'Version' }), el('dd', { text: `component ${contract.version}${plugin ? ` · plugin ${plugin.version}` : ''}` })),
    el('div', { class: 'docs-columns' },
      el('div', {}, el('h3', { text: 'Inputs' }), fieldsTable(contract.inputs)),
      el('div', {}, el('h3', { text: 'Output events' }),
        contract.outputs.length ? el('ul', { class: 'outputs' }, contract.outputs.map(o =>
          el('li', {}, el('code', { text: o.event }), ' ', spelled(o.payload), described(o)))) : el('p', { class: 'muted', text: 'none' }),
        el('h3', { text: 'Interactions' }),
        interactions.length ? el('ul', { class: 'declared-interactions' }, interactions.map(i =>
          el('li', {}, el('code', { text: i.name }), ' ', spelled(i.data || []), described(i)))) : el('p', { class: 'muted', text: 'none declared' }),
        el('h3', { text: 'Permissions' }),
        permissions.length ? el('ul', { class: 'permissions', id: 'docs-permissions' }, permissions.map(p =>
          el('li', {}, el('code', { text: p.permission }), ' ', el('span', { class: p.granted === false ? 'bad' : 'ok', text: permissionState(p) }),
            p.reason ? el('span', { class: 'muted', text: ` — ${p.reason}` }) : null)))
          : el('p', { class: 'muted', id: 'docs-permissions', text: 'none requested: the plugin runs with no access beyond its own calls' }),
        plugin && plugin.data ? el('p', { id: 'docs-data', text: `Keeps ${sizeText(plugin.data.bytes)} of ${sizeText(plugin.data.limit)} in its data folder.` }) : null)));
}

