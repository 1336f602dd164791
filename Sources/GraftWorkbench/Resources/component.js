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
// JSON for anything else). `changed` runs on every edit.
function control(field, value, changed) {
  const id = `input-${field.key}`;
  let read, editor;
  let present = value !== undefined;
  const touch = () => { present = true; changed(); };
  if (field.type === 'string') {
    editor = el('input', { id, type: 'text', value: value ?? '', oninput: touch });
    read = () => editor.value;
  } else if (field.type === 'number') {
    editor = el('input', { id, type: 'number', step: 'any', value: value ?? '', oninput: touch });
    read = () => editor.value === '' ? null : Number(editor.value);
  } else if (field.type === 'boolean') {
    editor = el('input', { id, type: 'checkbox', checked: value === true, onchange: touch });
    read = () => editor.checked;
  } else if (field.type === 'list') {
    const rows = el('div', { class: 'list-items' });
    const addRow = item => {
      const input = el('input', { type: 'text', class: 'list-item',
        value: typeof item === 'string' ? item : json(item), oninput: touch });
      const row = el('div', { class: 'list-row' }, input,
        el('button', { type: 'button', class: 'small', title: 'remove', text: '−', onclick: () => { row.remove(); touch(); } }));
      rows.append(row);
      return input;
    };
    for (const item of Array.isArray(value) ? value : []) addRow(item);
    editor = el('div', { class: 'list-editor', id }, rows,
      el('button', { type: 'button', class: 'small add-item', text: '+ item', onclick: () => { addRow('').focus(); touch(); } }));
    read = () => [...rows.querySelectorAll('.list-item')].map(input => parseItem(input.value));
  } else {
    editor = el('textarea', { id, rows: 3, text: value === undefined ? '' : pretty(value), oninput: touch });
    read = () => { try { return JSON.parse(editor.value); } catch (e) { return editor.value; } };
  }
  const node = el('div', { class: 'control', dataset: { key: field.key, type: field.type } },
    el('label', { for: id }, el('span', { class: 'control-key', text: field.key }), ' ',
      el('span', { class: 'type', text: field.type })),
    editor,
    field.description ? el('small', { class: 'muted', text: field.description }) : null);
  return { key: field.key, node, read: () => present ? read() : undefined };
}

function contractView(contract) {
  return el('section', { class: 'card contract', id: 'contract' },
    el('h2', { text: 'Contract' }),
    contract.description ? el('p', { text: contract.description }) : null,
    el('h3', { text: 'Inputs' }),
    contract.inputs.length ? el('table', { class: 'fields' }, contract.inputs.map(f =>
      el('tr', {}, el('td', {}, el('code', { text: f.key })), el('td', { class: 'type', text: f.type }),
        el('td', { class: 'muted', text: f.description || '' })))) : el('p', { class: 'muted', text: 'none' }),
    el('h3', { text: 'Output events' }),
    contract.outputs.length ? el('ul', { class: 'outputs' }, contract.outputs.map(o =>
      el('li', {}, el('code', { text: o.event }), ' {',
        o.payload.map((p, i) => [i ? ', ' : '', el('code', { text: p.key }), `: ${p.type}`]), '}',
        o.description ? el('span', { class: 'muted', text: ` — ${o.description}` }) : null))) : el('p', { class: 'muted', text: 'none' }));
}

function knownInteractions(reference) {
  try { return JSON.parse(localStorage.getItem(`graft-wb-interactions:${reference}`)) || []; } catch (e) { return []; }
}
function rememberInteraction(reference, action) {
  const known = knownInteractions(reference);
  if (!known.includes(action)) {
    known.push(action);
    try { localStorage.setItem(`graft-wb-interactions:${reference}`, json(known)); } catch (e) {}
  }
}

// A sample `data` object for a declared interaction: one value of each field's type.
function sampleData(fields) {
  if (!fields || !fields.length) return null;
  const samples = { string: '', number: 0, boolean: false, list: [], object: {} };
  return Object.fromEntries(fields.map(f => [f.key, samples[f.type] ?? null]));
}

views.component = (main, reference) => {
  let session = null, shownSequence = 0, controls = [], contractKey = '', declared = [];
  let inFlight = false, pending = false, frame = null;
  wb.timings.renders = [];
  const title = el('h1', {}, 'Component ', el('code', { text: reference }));
  const meta = el('p', { class: 'muted', id: 'render-meta' });
  const canvas = el('div', { class: 'canvas', id: 'canvas' }, el('p', { class: 'muted', text: 'Opening…' }));
  const renderWarnings = el('div', { id: 'render-warnings' });
  const controlsBox = el('form', { class: 'controls', id: 'controls', onsubmit: e => e.preventDefault() });
  const contractBox = el('div', {});
  const interactionsBox = el('div', { class: 'interactions', id: 'interactions' });
  const emitsBox = el('div', { class: 'emits', id: 'emits' });
  const note = el('p', { class: 'note', id: 'interaction-note' });
  const mediaSelect = el('select', { id: 'media-type', onchange: async () => {
    try { showRender(await api('POST', `/api/sessions/${session}/media-type`, { html: mediaSelect.value === 'text/html' })); }
    catch (error) { banner('error', errorText(error)); }
  } }, el('option', { value: 'text/html', text: 'text/html' }), el('option', { value: 'text/plain', text: 'text/plain' }));
  const panel = actionsPanel({ component: reference.split('@')[0] });
  main.append(title, el('div', { class: 'component-page' },
    el('div', { class: 'column side' },
      el('section', { class: 'card' }, el('h2', { text: 'Controls' }), controlsBox),
      el('section', { class: 'card' }, el('h2', { text: 'Interactions' }), interactionsBox, note),
      el('section', { class: 'card' }, el('h2', { text: 'Simulate an event' }), emitsBox),
      contractBox),
    el('div', { class: 'column wide' },
      el('section', { class: 'card' },
        el('div', { class: 'canvas-head' }, el('h2', { text: 'Render' }), el('label', {}, 'media type ', mediaSelect)),
        meta, canvas, renderWarnings),
      panel.node)));

  function collect() {
    const inputs = {};
    for (const c of controls) { const value = c.read(); if (value !== undefined) inputs[c.key] = value; }
    return inputs;
  }

  function buildControls(contract, inputs) {
    contractKey = json(contract.inputs);
    clear(controlsBox);
    controls = contract.inputs.map(field => control(field, inputs[field.key], inputsChanged));
    if (!controls.length) controlsBox.append(el('p', { class: 'muted', text: 'This component takes no inputs.' }));
    for (const c of controls) controlsBox.append(c.node);
    clear(contractBox).append(contractView(contract));
    buildEmits(contract);
  }

  function buildEmits(contract) {
    clear(emitsBox);
    if (!contract.outputs.length) { emitsBox.append(el('p', { class: 'muted', text: 'No declared events.' })); return; }
    for (const output of contract.outputs) {
      const sample = {};
      for (const field of output.payload) sample[field.key] = sampleOf(field.type);
      const payload = el('input', { type: 'text', class: 'payload', value: json(sample), title: 'payload (JSON)' });
      emitsBox.append(el('div', { class: 'emit-row' },
        el('button', { type: 'button', class: 'emit-button', dataset: { event: output.event }, text: `emit ${output.event}`,
          onclick: async () => {
            let value;
            try { value = JSON.parse(payload.value || 'null'); } catch (e) { banner('error', `the payload of ${output.event} is not JSON`); return; }
            try {
              const answer = await api('POST', `/api/sessions/${session}/emit`, { event: output.event, payload: value });
              note.textContent = answer.warnings.length ? answer.warnings.map(w => `${w.code}: ${w.message}`).join(' ') : `${output.event} recorded`;
            } catch (error) { banner('error', errorText(error)); }
          } }), payload));
    }
  }

  function buildInteractions() {
    clear(interactionsBox);
    // A component that declares its interactions (ABI 1.1) gets exactly those as buttons (data from the
    // data box, else a sample of their fields); one that cannot declare (ABI 1.0) gets the names typed
    // here before that it answered.
    const typed = declared.length ? [] : knownInteractions(reference);
    const buttons = el('div', { class: 'interaction-buttons' },
      declared.map(d => el('button', { type: 'button', class: 'interaction-button declared',
        dataset: { action: d.name }, text: d.name, title: d.description || '',
        onclick: () => interactDeclared(d) })),
      typed.map(action => el('button', { type: 'button', class: 'interaction-button',
        dataset: { action }, text: action, onclick: () => interact(action, null) })));
    const name = el('input', { type: 'text', id: 'interaction-name', placeholder: 'interaction, e.g. tap' });
    const data = el('input', { type: 'text', id: 'interaction-data', placeholder: 'data (JSON, optional)' });
    function dataFromBox() {
      if (!data.value.trim()) return null;
      try { return JSON.parse(data.value); } catch (e) { banner('error', 'the interaction data is not JSON'); return undefined; }
    }
    // The data box, else a sample of the declared fields, which is put in the box so that what was sent
    // shows and can be edited; data that is not JSON sends nothing.
    function interactDeclared(d) {
      let value = dataFromBox();
      if (value === undefined) return;
      if (value === null) { value = sampleData(d.data); if (value !== null) data.value = JSON.stringify(value); }
      interact(d.name, value);
    }
    const go = () => {
      if (!name.value.trim()) return;
      const value = dataFromBox();
      if (value === undefined) return;
      interact(name.value.trim(), value);
    };
    interactionsBox.append(buttons, el('div', { class: 'interact-row' }, name, data,
      el('button', { type: 'button', id: 'interact-button', text: 'Interact', onclick: go })),
      el('small', { class: 'muted', text: declared.length
        ? 'The buttons are the interactions the component declares; any other name can be tried above.'
        : 'This component declares no interactions (an ABI 1.0 plugin cannot): each one it answers becomes a button here.' }));
    name.addEventListener('keydown', e => { if (e.key === 'Enter') { e.preventDefault(); go(); } });
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

  async function sendInputs() {
    inFlight = true; pending = false;
    const startedAt = performance.now();
    try { showRender(await api('POST', `/api/sessions/${session}/inputs`, { inputs: collect() }), startedAt); }
    catch (error) { banner('error', errorText(error)); }
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
    try {
      const report = await api('POST', '/api/sessions', { component: reference, html: true });
      session = report.session;
      document.body.dataset.session = session;
      panel.scopeTo(report.instance);
      buildControls(report.contract || { inputs: [], outputs: [] }, report.inputs);
      declared = (report.contract && report.contract.interactions) || [];
      buildInteractions();
      showRender(report);
    } catch (error) {
      clear(canvas).append(errorCard(error, `${reference} could not be opened`));
    }
  })();
  return () => {
    stopRenders();
    panel.stop();
    if (session) api('DELETE', `/api/sessions/${session}`).catch(() => {});
  };
};
