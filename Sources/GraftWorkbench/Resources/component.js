// `app.js`, part 3: the Component page — the contract, the live render (a
// session on the server: a real instance from the debugConfig), controls
// built from the typed inputs that re-render as they change, the
// interactions as buttons, simulated events, and the actions panel.
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

// What this browser keeps for a component (a private window, or storage refused, keeps nothing).
function kept(key, empty) {
  try { return JSON.parse(localStorage.getItem(key)) || empty; } catch (e) { return empty; }
}
function keep(key, value) {
  try { localStorage.setItem(key, json(value)); } catch (e) {}
}

function knownInteractions(reference) { return kept(`graft-wb-interactions:${reference}`, []); }
function rememberInteraction(reference, action) {
  const known = knownInteractions(reference);
  if (!known.includes(action)) keep(`graft-wb-interactions:${reference}`, [...known, action]);
}

// The canvas's sizes: the component gets each as its real container size.
const CANVAS_SIZES = [
  ['auto', 'unbounded (fills the canvas)', 0, 0], ['phone', 'phone 360 × 640', 360, 640],
  ['tablet', 'tablet 768 × 1024', 768, 1024], ['desktop', 'desktop 1280 × 800', 1280, 800], ['custom', 'custom', null, null],
];

// A shell word: the text in single quotes.
function shellQuoted(text) { return `'${text.replaceAll("'", "'\\''")}'`; }

// Stories a tester saved for a component, by name, in this browser.
function localStories(reference) { return kept(`graft-wb-stories:${reference}`, {}); }
function keepLocalStories(reference, stories) { keep(`graft-wb-stories:${reference}`, stories); }

views.component = (main, reference, query) => {
  let session = null, shownSequence = 0, controls = [], contractKey = '', declared = [], plugin = null, contract = null;
  let inFlight = false, pending = false, frame = null;
  wb.timings.renders = [];
  const title = el('h1', {}, 'Component ', el('code', { text: reference }));
  const meta = el('p', { class: 'muted', id: 'render-meta' });
  const canvas = el('div', { class: 'canvas bg-light', id: 'canvas' }, el('p', { class: 'muted', text: 'Opening…' }));
  const renderWarnings = el('div', { id: 'render-warnings' });
  const controlsBox = el('form', { class: 'controls', id: 'controls', onsubmit: e => e.preventDefault() });
  // Why the controls' values are not what the canvas shows (a send that failed): stays until a render succeeds.
  const controlsProblem = el('p', { class: 'bad controls-problem', id: 'controls-problem', role: 'alert' });
  const docsBox = el('div', { id: 'docs' });
  const interactionsBox = el('div', { class: 'interactions', id: 'interactions' });
  const emitsBox = el('div', { class: 'emits', id: 'emits' });
  const note = el('p', { class: 'note', id: 'interaction-note', role: 'status' });
  const labelled = (text, control) => el('label', { class: 'tool' }, el('span', { text }), control);
  const mediaSelect = el('select', { id: 'media-type', onchange: async () => {
    try { showRender(await api('POST', `/api/sessions/${session}/media-type`, { html: mediaSelect.value === 'text/html' })); }
    catch (error) { banner('error', errorText(error)); }
  } }, el('option', { value: 'text/html', text: 'text/html' }), el('option', { value: 'text/plain', text: 'text/plain' }));
  const sizeSelect = el('select', { id: 'canvas-size', onchange: () => {
    const chosen = CANVAS_SIZES.find(s => s[0] === sizeSelect.value);
    if (chosen && chosen[2] !== null) { widthInput.value = chosen[2]; heightInput.value = chosen[3]; sendSize(); }
    else widthInput.focus();
  } }, CANVAS_SIZES.map(([value, text]) => el('option', { value, text })));
  const dimension = id => el('input', { type: 'number', id, min: 0, max: 100000, step: 1, value: 0, class: 'dimension',
    onchange: () => { sizeSelect.value = matchingSize(); sendSize(); } });
  const widthInput = dimension('canvas-width'), heightInput = dimension('canvas-height');
  const background = el('select', { id: 'canvas-background', onchange: () => {
    canvas.classList.remove('bg-checker', 'bg-light', 'bg-dark');
    canvas.classList.add(`bg-${background.value}`);
  } }, [['light', 'light'], ['dark', 'dark'], ['checker', 'checkered']].map(([value, text]) => el('option', { value, text })));
  const zoom = el('select', { id: 'canvas-zoom', onchange: () => canvas.style.setProperty('--zoom', String(Number(zoom.value) / 100)) },
    [50, 75, 100, 150, 200].map(z => el('option', { value: z, text: `${z}%`, selected: z === 100 })));
  // Stories: named configurations — the debugConfig, those the plugin declares, and those saved here — and the
  // current one as a link or a `graft try` command.
  const storySelect = el('select', { id: 'story', onchange: () => applyStory(storySelect.value) });
  const storyName = el('input', { type: 'text', id: 'story-name', placeholder: 'e.g. long title' });
  const shareBox = el('input', { type: 'text', id: 'share-text', readonly: true, 'aria-label': 'Link or command to copy' });
  const copy = async (text, what) => {
    shareBox.value = text;
    shareBox.select();
    try { await navigator.clipboard.writeText(text); note.textContent = `${what} copied`; } catch (e) { note.textContent = `${what}: select and copy it above`; }
  };
  const storiesCard = el('section', { class: 'card stories', id: 'stories' }, el('h2', { text: 'Stories' }),
    el('div', { class: 'form-row' }, labelled('story', storySelect),
      el('button', { type: 'button', class: 'small', id: 'story-reset', text: 'reset', title: 'back to the debugConfig', onclick: () => applyStory('debug') }),
      el('button', { type: 'button', class: 'small', id: 'story-delete', text: 'delete', onclick: deleteStory })),
    el('form', { class: 'form-row', id: 'story-save', onsubmit: event => { event.preventDefault(); saveStory(); } },
      labelled('save the controls as', storyName), el('button', { type: 'submit', class: 'small', text: 'save' })),
    el('div', { class: 'form-row' },
      el('button', { type: 'button', class: 'small', id: 'copy-link', text: 'copy link', onclick: () => copy(shareLink(), 'link') }),
      el('button', { type: 'button', class: 'small', id: 'copy-command', text: 'copy graft try', onclick: () => copy(tryCommand(), 'command') })),
    shareBox);
  const panel = actionsPanel({ component: reference.split('@')[0] });
  main.append(title, docsBox, el('div', { class: 'component-page' },
    el('div', { class: 'column side' },
      storiesCard,
      el('section', { class: 'card' }, el('h2', { text: 'Controls' }), controlsProblem, controlsBox),
      el('section', { class: 'card' }, el('h2', { text: 'Interactions' }), interactionsBox, note),
      el('section', { class: 'card' }, el('h2', { text: 'Simulate an event' }), emitsBox)),
    el('div', { class: 'column wide' },
      el('section', { class: 'card' },
        el('div', { class: 'canvas-head' }, el('h2', { text: 'Render' }), labelled('media type', mediaSelect)),
        el('div', { class: 'canvas-tools', id: 'canvas-tools' }, labelled('size', sizeSelect), labelled('width', widthInput),
          labelled('height', heightInput), labelled('background', background), labelled('zoom', zoom)),
        meta, canvas,
        el('p', { class: 'muted frame-note', id: 'frame-note', text: 'The component’s HTML is shown in a frame with no rights ' +
          '(no scripts, forms or navigation), so its own buttons do nothing here: press them with Interactions.' }),
        renderWarnings),
      panel.node)));

  function storyInputs(value) {
    if (!contract) return null;
    if (value === 'debug') return contract.debugConfig || {};
    if (value.startsWith('plugin:')) return ((contract.stories || []).find(s => s.name === value.slice(7)) || {}).config || null;
    if (value.startsWith('local:')) return localStories(reference)[value.slice(6)] || null;
    return null;
  }

  function listStories(selected) {
    clear(storySelect).append(el('option', { value: 'debug', text: 'debugConfig' }),
      ...((contract && contract.stories) || []).map(s => el('option', { value: `plugin:${s.name}`, text: s.name, title: s.description || '' })),
      ...Object.keys(localStories(reference)).sort().map(name => el('option', { value: `local:${name}`, text: `${name} (saved here)` })));
    if (selected && [...storySelect.options].some(o => o.value === selected)) storySelect.value = selected;
  }

  function applyStory(value) {
    const inputs = storyInputs(value);
    if (!inputs) return;
    storySelect.value = value;
    buildControls(contract, inputs);
    sendInputs();
  }

  function saveStory() {
    const name = storyName.value.trim();
    if (!name) { storyName.focus(); return; }
    const stories = localStories(reference);
    stories[name] = collect();
    keepLocalStories(reference, stories);
    listStories(`local:${name}`);
    storyName.value = '';
    note.textContent = `story “${name}” saved in this browser`;
  }

  function deleteStory() {
    if (!storySelect.value.startsWith('local:')) { note.textContent = 'only stories saved here can be deleted'; return; }
    const stories = localStories(reference);
    delete stories[storySelect.value.slice(6)];
    keepLocalStories(reference, stories);
    listStories('debug');
  }

  function shareLink() {
    return `${location.origin}${location.pathname}#/component/${encodeURIComponent(reference)}?inputs=${encodeURIComponent(json(collect()))}`;
  }

  function tryCommand() {
    const width = Number(widthInput.value) || 0, height = Number(heightInput.value) || 0;
    return [`graft try ${reference} --config ${shellQuoted(json(collect()))}`, width ? `--width ${width}` : '', height ? `--height ${height}` : '',
      mediaSelect.value === 'text/html' ? '--html' : ''].filter(Boolean).join(' ');
  }

  function matchingSize() {
    const found = CANVAS_SIZES.find(s => s[2] === Number(widthInput.value) && s[3] === Number(heightInput.value));
    return found ? found[0] : 'custom';
  }

  async function sendSize() {
    if (!session) return;
    try { showRender(await api('POST', `/api/sessions/${session}/size`, { width: Number(widthInput.value) || 0, height: Number(heightInput.value) || 0 })); }
    catch (error) { banner('error', errorText(error)); }
  }

  function showSize(size) {
    if (!size) return;
    canvas.style.setProperty('--frame-width', size.width > 0 ? `${size.width}px` : '100%');
    canvas.style.setProperty('--frame-height', size.height > 0 ? `${size.height}px` : '280px');
    if (document.activeElement !== widthInput) widthInput.value = size.width;
    if (document.activeElement !== heightInput) heightInput.value = size.height;
    sizeSelect.value = matchingSize();
  }

  function collect() {
    const inputs = {};
    for (const c of controls) { const value = c.read(); if (value !== undefined) inputs[c.key] = value; }
    return inputs;
  }

  function buildControls(newContract, inputs) {
    contract = newContract;
    contractKey = json(contract.inputs);
    clear(controlsBox);
    controls = contract.inputs.map(field => control(field, inputs[field.key], inputsChanged));
    if (!controls.length) controlsBox.append(el('p', { class: 'muted', text: 'This component takes no inputs.' }));
    for (const c of controls) controlsBox.append(c.node);
    clear(docsBox).append(docsView(contract, plugin));
    buildEmits(contract);
  }

  function buildEmits(contract) {
    clear(emitsBox);
    if (!contract.outputs.length) { emitsBox.append(el('p', { class: 'muted', text: 'No declared events.' })); return; }
    for (const output of contract.outputs) {
      const form = fieldForm(`emit-${output.event}`, output.payload, `emit ${output.event}`, async payload => {
        try {
          const answer = await api('POST', `/api/sessions/${session}/emit`, { event: output.event, payload });
          note.textContent = answer.warnings.length ? answer.warnings.map(w => `${w.code}: ${w.message}`).join(' ') : `${output.event} recorded`;
        } catch (error) { banner('error', errorText(error)); }
      });
      const button = form.querySelector('.form-submit');
      button.classList.add('emit-button');
      button.dataset.event = output.event;
      emitsBox.append(el('div', { class: 'emit-form', dataset: { event: output.event } },
        output.description ? el('p', { class: 'muted', text: output.description }) : null, form));
    }
  }

  function buildInteractions() {
    clear(interactionsBox);
    // A component that declares its interactions (ABI 1.1) gets a form for each, built from its data fields;
    // one that cannot declare (ABI 1.0) gets a button for each name typed below that it answered.
    const forms = declared.map(d => {
      const form = fieldForm(`interact-${d.name}`, d.data || [], d.name, data => interact(d.name, data));
      const button = form.querySelector('.form-submit');
      button.classList.add('interaction-button', 'declared');
      button.dataset.action = d.name;
      if (d.description) button.title = d.description;
      return el('div', { class: 'interaction-form', dataset: { action: d.name } },
        d.description ? el('p', { class: 'muted', text: d.description }) : null, form);
    });
    const typed = declared.length ? [] : knownInteractions(reference);
    const buttons = el('div', { class: 'interaction-buttons' }, typed.map(action => el('button', { type: 'button', class: 'interaction-button',
      dataset: { action }, text: action, onclick: () => interact(action, null) })));
    const name = el('input', { type: 'text', id: 'interaction-name', placeholder: 'e.g. tap', 'aria-label': 'Interaction name' });
    const data = el('input', { type: 'text', id: 'interaction-data', placeholder: 'data (JSON, optional)', 'aria-label': 'Interaction data (JSON)' });
    const go = () => {
      if (!name.value.trim()) return;
      let value = null;
      if (data.value.trim()) { try { value = JSON.parse(data.value); } catch (e) { banner('error', 'the interaction data is not JSON'); return; } }
      interact(name.value.trim(), value);
    };
    name.addEventListener('keydown', e => { if (e.key === 'Enter') { e.preventDefault(); go(); } });
    const free = el('div', { class: 'interact-row' }, name, data, el('button', { type: 'button', id: 'interact-button', text: 'Interact', onclick: go }));
    interactionsBox.append(...forms, buttons,
      declared.length ? el('details', { class: 'advanced', id: 'interaction-free' }, el('summary', { text: 'Another interaction, by name' }), free) : free,
      el('small', { class: 'muted', text: declared.length
        ? 'One form per interaction the component declares, from its data fields.'
        : 'This component declares no interactions (an ABI 1.0 plugin cannot): each one it answers becomes a button here.' }));
  }

  async function interact(action, data) {
    try {
      const report = await api('POST', `/api/sessions/${session}/interact`, { action, data });
      if (report.answered) {
        note.textContent = `${action}: answered`;
        if (!declared.length && !knownInteractions(reference).includes(action)) { rememberInteraction(reference, action); buildInteractions(); }
      } else {
        note.textContent = `${action}: the component did not take it (see the warnings)`;
      }
      showRender(report);
    } catch (error) { banner('error', errorText(error)); }
  }

  function inputsChanged() {
    if (inFlight) { pending = true; return; }
    sendInputs();
  }

  // Each control's value against its declared type: one that does not fit
  // is said beside it, and nothing is sent while one does not.
  function controlProblems() {
    let wrong = 0;
    for (const c of controls) {
      const field = contract.inputs.find(f => f.key === c.key);
      const value = c.read();
      const problem = field && value !== undefined && value !== null ? typeProblem(field, value) : null;
      const said = problem && field.type === 'number' && typeof value === 'number' ? `${field.key} must be a finite number` : problem;
      c.mark(said);
      if (said) wrong += 1;
    }
    return wrong;
  }

  async function sendInputs() {
    if (controlProblems()) { note.textContent = 'not sent: a control holds a value its input does not take'; pending = false; return; }
    inFlight = true; pending = false;
    const startedAt = performance.now();
    try {
      showRender(await api('POST', `/api/sessions/${session}/inputs`, { inputs: collect() }), startedAt);
      controlsProblem.textContent = '';
    } catch (error) {
      // The controls now hold what the canvas never rendered: said here, and kept, until a send renders.
      controlsProblem.textContent = `Not rendered: ${errorText(error)} The canvas still shows the last inputs that rendered.`;
    }
    inFlight = false;
    if (pending) sendInputs();
  }

  function shown(report, startedAt) {
    const record = { sequence: report.sequence, reason: report.reason, startedAt, shownAt: performance.now(),
      wall: Date.now(), output: report.output, error: report.error || null, component: reference };
    wb.timings.renders.push(record);
    if (wb.timings.renders.length > 500) wb.timings.renders.shift();
    wb.timings.lastShown = record;
    document.body.dataset.renderSequence = String(report.sequence);
  }

  function showRender(report, startedAt) {
    if (!report || report.session !== session || report.sequence <= shownSequence) return;
    shownSequence = report.sequence;
    if (report.contract && json(report.contract.inputs) !== contractKey) buildControls(report.contract, report.inputs);
    showSize(report.size);
    meta.textContent = `${report.component} from ${report.plugin || '(no plugin)'} · render ${report.sequence} (${report.reason})` +
      (report.mediaType ? ` · ${report.mediaType}` : '');
    clear(renderWarnings).append(warningList(report.warnings) || '');
    if (report.error) {
      frame = null;
      clear(canvas).append(errorCard(report.error));
      shown(report, startedAt);
      return;
    }
    if (report.mediaType === 'text/html' && frame && frame.isConnected) {
      // A new frame for each render, shown once loaded: Chromium limits
      // how often one frame may navigate (200 times in 10 s), and fast
      // typing would reach that with srcdoc changes.
      const sequence = report.sequence;
      const next = outputView('text/html', report.output, () => {
        if (sequence !== shownSequence) { next.remove(); return; }
        for (const old of [...canvas.querySelectorAll('.render-frame')]) if (old !== next) old.remove();
        next.classList.remove('incoming');
        next.id = 'render-frame';
        frame = next;
        shown(report, startedAt);
      });
      next.classList.add('incoming');
      canvas.append(next);
      return;
    }
    const view = outputView(report.mediaType, report.output, () => shown(report, startedAt), 'render-frame');
    frame = report.mediaType === 'text/html' ? view : null;
    clear(canvas).append(view);
  }

  const stopRenders = keyed(wb.handlers.render, message => showRender(message));
  (async () => {
    let report;
    try {
      report = await api('POST', '/api/sessions', { component: reference, html: true });
    } catch (error) {
      // Nothing to tell stories, controls or interactions about: the page is the error.
      main.replaceChildren(title, errorCard(error, `${reference} could not be opened`));
      return;
    }
    try {
      session = report.session;
      document.body.dataset.session = session;
      panel.scopeTo(report.instance);
      buildControls(report.contract || { inputs: [], outputs: [] }, report.inputs);
      // Who ships it, and what its plugin may touch, for the docs panel.
      api('GET', '/api/plugins').then(answer => {
        plugin = answer.plugins.find(p => p.id === report.plugin) || null;
        if (contract) clear(docsBox).append(docsView(contract, plugin));
      }).catch(() => {});
      declared = (report.contract && report.contract.interactions) || [];
      buildInteractions();
      showRender(report);
      // A shared link's inputs, or a story by name, replace the debugConfig.
      listStories('debug');
      const shared = query && query.get('inputs');
      if (shared) {
        try { buildControls(contract, JSON.parse(shared)); note.textContent = 'inputs from the link'; sendInputs(); }
        catch (e) { banner('error', 'the link’s inputs are not JSON; the debugConfig is shown'); }
      } else if (query && query.get('story')) {
        const name = query.get('story');
        const value = [`plugin:${name}`, `local:${name}`].find(v => storyInputs(v));
        if (value) applyStory(value); else banner('error', `no story “${name}” for ${reference}`);
      }
    } catch (error) {
      banner('error', errorText(error));
    }
  })();
  return () => {
    stopRenders();
    panel.stop();
    if (session) api('DELETE', `/api/sessions/${session}`).catch(() => {});
  };
};
