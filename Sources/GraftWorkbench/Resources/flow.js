// `app.js`, part 6: the Flow page (`--flow`) — the current screen's
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

function flowInstanceCard(instance, send) {
  const action = el('input', { type: 'text', class: 'flow-action', placeholder: 'interaction' });
  const data = el('input', { type: 'text', class: 'flow-data', placeholder: 'data (JSON)' });
  const event = el('select', { class: 'flow-event' }, (instance.events || []).map(e => el('option', { value: e, text: e })));
  const payload = el('input', { type: 'text', class: 'flow-payload', placeholder: 'payload (JSON)' });
  const parse = (input) => { if (!input.value.trim()) return undefined; return JSON.parse(input.value); };
  return el('article', { class: 'card flow-instance', dataset: { instance: instance.instance } },
    el('h3', {}, el('code', { text: instance.instance }), ' ', el('span', { class: 'muted', text: instance.component })),
    instance.placeholder ? el('p', { class: 'bad', text: 'placeholder: the component could not be created' }) : null,
    outputView(instance.mediaType, instance.output),
    el('div', { class: 'form-row' }, action, data, el('button', { type: 'button', text: 'Interact', onclick: () => {
      try { send({ instance: instance.instance, interact: action.value, data: parse(data) }); }
      catch (e) { banner('error', 'the data is not JSON'); }
    } })),
    (instance.events || []).length ? el('div', { class: 'form-row' }, event, payload, el('button', { type: 'button', text: 'Emit', onclick: () => {
      try { send({ instance: instance.instance, event: event.value, payload: parse(payload) }); }
      catch (e) { banner('error', 'the payload is not JSON'); }
    } })) : null);
}

views.flow = main => {
  main.append(el('h1', { text: 'Flow' }));
  const head = el('p', { class: 'muted', id: 'flow-head' });
  const screen = el('div', { class: 'flow-screen', id: 'flow-screen' });
  const transcript = el('ol', { class: 'transcript', id: 'transcript' });
  const variables = el('table', { class: 'fields', id: 'variables' });
  main.append(head, el('div', { class: 'flow-page' },
    el('div', { class: 'column wide' }, el('div', { class: 'panel-head' }, el('h2', { text: 'Screen' }),
      el('button', { type: 'button', id: 'flow-restart', text: 'Restart', onclick: () => call('POST', '/api/flow/restart') })), screen),
    el('div', { class: 'column side' }, el('section', { class: 'card' }, el('h2', { text: 'Variables' }), variables),
      el('section', { class: 'card' }, el('h2', { text: 'Transcript' }), transcript))));

  function show(state) {
    head.textContent = `${state.path} · ${state.closed ? 'closed' : `screen ${state.screen}`} · screens: ${(state.screens || []).join(', ')}`;
    clear(screen).append(...(state.instances || []).map(i => flowInstanceCard(i, event => call('POST', '/api/flow/events', event))));
    if (state.closed) screen.append(el('p', { class: 'muted', text: 'The flow closed. Restart to run it again.' }));
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
