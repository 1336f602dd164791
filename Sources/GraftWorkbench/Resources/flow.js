// `app.js`, part 9: the Flow page (`--flow`) — the current screen's
// instances rendered, with forms to interact with each or emit its events,
// beside the transcript and the variables.
function transcriptLine(entry) {
  const parts = [];
  switch (entry.type) {
    case 'render': parts.push(`${entry.instance} rendered ${entry.component} (${entry.reason})${entry.placeholder ? ' — placeholder' : ''}`); break;
    case 'interaction': parts.push(`${entry.instance} interact ${entry.action} ${json(entry.data)}${entry.known ? '' : ' (unknown)'}`); break;
    case 'event': parts.push(`${entry.instance} → ${entry.event} ${json(entry.payload ?? null)}`); break;
    case 'action': parts.push(`${entry.name || entry.action} ${entry.ok === false ? 'failed' : 'ran'} ${json(entry.params ?? {})}${entry.error ? ' — ' + entry.error : ''}`); break;
    case 'validation': parts.push(`${entry.validator}: ${entry.valid ? 'valid' : 'invalid'}${entry.message ? ' — ' + entry.message : ''}`); break;
    case 'warning': parts.push(`${entry.code}: ${entry.message}`); break;
    case 'variable_change': parts.push(`${entry.name} = ${json(entry.value ?? entry.new ?? null)}`); break;
    case 'navigation': parts.push(`${entry.from} → ${entry.to}`); break;
    case 'close': parts.push(`flow closed on ${entry.screen}`); break;
    default: parts.push(json(entry));
  }
  return el('li', { class: `entry ${entry.type}`, dataset: { type: entry.type } },
    el('span', { class: `kind ${entry.type}`, text: entry.type }), ' ', parts.join(' '));
}

// An instance of the screen: its render, a form for each interaction its
// component declares and each event it can emit (built from the declared
// fields), and a free row for any other interaction.
function flowInstanceCard(instance, contract, send) {
  const who = instance.instance;
  const forms = [];
  for (const d of (contract && contract.interactions) || []) {
    forms.push(el('div', { class: 'interaction-form', dataset: { action: d.name } },
      el('h4', { class: 'form-title', text: `Interact: ${d.name}` }),
      fieldForm(`flow-${who}-interact-${d.name}`, d.data || [], d.name, data => send({ instance: who, interact: d.name, data }))));
  }
  const events = contract ? contract.outputs : (instance.events || []).map(event => ({ event, payload: [] }));
  for (const output of events) {
    forms.push(el('div', { class: 'emit-form', dataset: { event: output.event } },
      el('h4', { class: 'form-title', text: `Emit: ${output.event}` }),
      fieldForm(`flow-${who}-emit-${output.event}`, output.payload, `emit ${output.event}`,
        payload => send({ instance: who, event: output.event, payload }))));
  }
  const action = el('input', { type: 'text', class: 'flow-action', placeholder: 'interaction', 'aria-label': `${who}: interaction name` });
  const data = el('input', { type: 'text', class: 'flow-data', placeholder: 'data (JSON)', 'aria-label': `${who}: interaction data (JSON)` });
  const free = el('div', { class: 'form-row' }, action, data, el('button', { type: 'button', class: 'flow-interact-button', text: 'Interact', onclick: () => {
    let value;
    try { value = data.value.trim() ? JSON.parse(data.value) : undefined; } catch (e) { banner('error', 'the data is not JSON'); return; }
    send({ instance: who, interact: action.value, data: value });
  } }));
  const declaresInteractions = !!(contract && (contract.interactions || []).length);
  return el('article', { class: 'card flow-instance', dataset: { instance: who } },
    el('h3', {}, el('code', { text: who }), ' ', el('span', { class: 'muted', text: instance.component })),
    instance.placeholder ? el('p', { class: 'bad', text: 'placeholder: the component could not be created' }) : null,
    outputView(instance.mediaType, instance.output),
    forms,
    declaresInteractions ? el('details', { class: 'advanced' }, el('summary', { text: 'Another interaction, by name' }), free) : free);
}

// Contracts of the flow's components, fetched once each (again after a swap, which may change them).
const flowContracts = new Map();
wb.handlers.swap.push(() => flowContracts.clear());
function contractOf(reference) {
  if (!flowContracts.has(reference)) {
    flowContracts.set(reference, api('GET', `/api/components/${encodeURIComponent(reference)}`).then(a => a.component).catch(() => null));
  }
  return flowContracts.get(reference);
}

views.flow = main => {
  main.append(el('h1', { text: 'Flow' }));
  const head = el('p', { class: 'muted', id: 'flow-head' });
  const screen = el('div', { class: 'flow-screen', id: 'flow-screen' });
  const transcript = el('ol', { class: 'transcript', id: 'transcript', tabindex: 0, 'aria-label': 'transcript' });
  const variables = el('table', { class: 'fields', id: 'variables' });
  main.append(head, el('div', { class: 'flow-page' },
    el('div', { class: 'column wide' }, el('div', { class: 'panel-head' }, el('h2', { text: 'Screen' }),
      el('button', { type: 'button', id: 'flow-restart', text: 'Restart', onclick: () => call('POST', '/api/flow/restart') })), screen),
    el('div', { class: 'column side' }, el('section', { class: 'card' }, el('h2', { text: 'Variables' }), variables),
      el('section', { class: 'card' }, el('h2', { text: 'Transcript' }), transcript))));

  let shownState = 0;
  function show(state) {
    head.textContent = `${state.path} · ${state.closed ? 'closed' : `screen ${state.screen}`} · screens: ${(state.screens || []).join(', ')}`;
    const instances = state.instances || [];
    const shown = ++shownState;
    Promise.all(instances.map(i => i.placeholder ? null : contractOf(i.component))).then(contracts => {
      if (shown !== shownState) return;  // a newer state is on its way
      clear(screen).append(...instances.map((i, n) => flowInstanceCard(i, contracts[n], event => call('POST', '/api/flow/events', event))));
      if (state.closed) screen.append(el('p', { class: 'muted', text: 'The flow closed. Restart to run it again.' }));
    });
    clear(transcript).append(...(state.transcript || []).map(transcriptLine).reverse());
    clear(variables).append(...Object.entries(state.variables || {}).map(([k, v]) =>
      el('tr', {}, el('td', {}, el('code', { text: k })), el('td', { text: json(v) }))));
    document.body.dataset.flowEntries = String((state.transcript || []).length);
  }
  async function call(method, path, body) {
    try { show(await api(method, path, body)); } catch (error) {
      // A workbench started without --flow: say how to get one, rather than an empty page with a Restart button.
      if (error.code === 'no_flow') {
        clear(main).append(el('h1', { text: 'Flow' }), el('p', { class: 'notice', id: 'no-flow' },
          'This workbench runs no flow. Start it with ', el('code', { text: '--flow FLOW.json' }),
          ' to run one screen by screen, its transcript and variables beside it.'));
        return;
      }
      banner('error', errorText(error));
    }
  }
  call('GET', '/api/flow');
  return keyed(wb.handlers.flow, show);
};
