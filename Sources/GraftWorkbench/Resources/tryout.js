// `app.js`, part 8: Validators and actions — try a validator with a value
// and its params, run an action with params and see its result. Both are
// recorded in the action log.
function typedInput(type, id) {
  if (type === 'boolean') return el('input', { type: 'checkbox', id });
  if (type === 'number') return el('input', { type: 'number', step: 'any', id });
  return el('input', { type: 'text', id, placeholder: type === 'string' ? '' : `${type} as JSON` });
}
function readTyped(type, input) {
  if (type === 'boolean') return input.checked;
  if (type === 'number') return input.value === '' ? null : Number(input.value);
  if (type === 'string') return input.value;
  try { return JSON.parse(input.value); } catch (e) { return input.value; }
}

function validatorForm(validators) {
  const select = el('select', { id: 'validator' }, validators.map(v =>
    el('option', { value: `${v.name}@${v.version}`, text: `${v.name}@${v.version} (${v.kind}${v.signature ? ' ' + v.signature : ''})` })));
  const value = el('input', { type: 'text', id: 'validator-value', placeholder: 'value', 'aria-label': 'Value to validate' });
  const params = el('div', { class: 'params', id: 'validator-params' });
  const result = el('div', { class: 'result', id: 'validator-result' });
  const showParams = () => {
    const chosen = validators.find(v => `${v.name}@${v.version}` === select.value);
    clear(params).append(...(chosen ? chosen.params : []).map((p, i) =>
      el('label', { class: 'param' }, el('span', { text: `${p.name} (${p.type})` }),
        el('input', { type: 'text', class: 'validator-param', dataset: { index: i } }))));
  };
  // Another validator: its params, and no result of the last one left under it.
  select.addEventListener('change', () => { showParams(); clear(result); });
  select.setAttribute('aria-label', 'Validator');
  showParams();
  const run = async () => {
    const sent = { validator: select.value, value: value.value,
      params: [...params.querySelectorAll('.validator-param')].map(i => i.value) };
    try {
      const answer = await api('POST', '/api/validate', sent);
      clear(result).append(el('span', { class: answer.valid ? 'ok' : 'bad', text: answer.valid ? 'valid' : 'invalid' }),
        answer.message ? ` — ${answer.message}` : '');
    } catch (error) { clear(result).append(el('span', { class: 'bad', text: errorText(error) })); }
  };
  // A form, so that Enter in the value or a param validates.
  return el('section', { class: 'card', id: 'validators' }, el('h2', { text: 'Validators' }),
    validators.length ? el('form', { id: 'validator-form', onsubmit: event => { event.preventDefault(); run(); } },
      el('div', { class: 'form-row' }, select, value), params,
      el('button', { type: 'submit', id: 'validate-button', text: 'Validate' }), result)
      : el('p', { class: 'muted', text: 'No plugin provides a validator.' }));
}

function actionForm(actions) {
  const select = el('select', { id: 'action' }, actions.map(a => el('option', { value: `${a.key}@${a.version}`, text: `${a.key}@${a.version}` })));
  const params = el('div', { class: 'params', id: 'action-params' });
  const payload = el('input', { type: 'text', id: 'action-payload', placeholder: 'optional' });
  const result = el('div', { class: 'result', id: 'action-result', role: 'status' });
  let fields = [];
  const showParams = () => {
    const chosen = actions.find(a => `${a.key}@${a.version}` === select.value);
    fields = Object.entries(chosen ? chosen.params : {}).map(([key, type]) => ({ key, type, input: typedInput(type, `action-param-${key}`) }));
    clear(params).append(...fields.map(f => el('label', { class: 'param' }, el('span', { text: `${f.key} (${f.type})` }), f.input)));
  };
  // Another action: its params, and no result of the last one left under it.
  select.addEventListener('change', () => { showParams(); clear(result); });
  select.setAttribute('aria-label', 'Action');
  showParams();
  const run = async () => {
    const sent = { action: select.value, params: {} };
    for (const f of fields) sent.params[f.key] = readTyped(f.type, f.input);
    if (payload.value.trim()) {
      try { sent.payload = JSON.parse(payload.value); } catch (e) { clear(result).append(el('span', { class: 'bad', text: 'the payload is not JSON' })); return; }
    }
    try { clear(result).append(actionResultView(await api('POST', '/api/action', sent))); }
    catch (error) { clear(result).append(el('span', { class: 'bad', text: errorText(error) })); }
  };
  return el('section', { class: 'card', id: 'actions' }, el('h2', { text: 'Actions' }),
    actions.length ? [el('div', { class: 'form-row' }, select), params,
      el('label', { class: 'param' }, el('span', { text: 'event payload (JSON)' }), payload),
      el('button', { type: 'button', id: 'action-button', text: 'Run', onclick: run }), result]
      : el('p', { class: 'muted', text: 'No plugin provides an action.' }));
}

// An action's answer as a person reads it: ran or failed, the plugin, what
// it set and returned as rows, and the raw JSON behind a toggle.
function actionResultView(answer) {
  const value = v => typeof v === 'string' ? v : json(v);
  const rows = [];
  for (const [key, v] of Object.entries(answer.variables || {})) rows.push(['sets ' + key, value(v)]);
  const result = answer.result;
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    for (const [key, v] of Object.entries(result)) rows.push([key, value(v)]);
  } else if (result !== undefined && result !== null) rows.push(['result', value(result)]);
  return el('div', { class: 'action-answer' },
    el('p', {}, el('span', { class: answer.ok === false ? 'bad' : 'ok', text: `${answer.action || answer.name || 'action'} ${answer.ok === false ? 'failed' : 'ran'}` }),
      answer.plugin ? el('span', { class: 'muted', text: ` · ${answer.plugin}` }) : null,
      answer.error ? el('span', { class: 'bad', text: ` — ${typeof answer.error === 'string' ? answer.error : errorText(answer.error)}` }) : null),
    rows.length ? el('table', { class: 'fields', id: 'action-rows' }, rows.map(([k, v]) => el('tr', {}, el('td', {}, el('code', { text: k })), el('td', { text: v }))))
      : el('p', { class: 'muted', text: 'It set nothing and returned nothing.' }),
    el('details', { class: 'advanced' }, el('summary', { text: 'JSON' }), el('pre', { text: pretty(answer) })));
}

// `#/try/validator/NAME` and `#/try/action/NAME` (the sidebar's links) open
// the page with that one chosen.
views.try = (main, rest) => {
  main.append(el('h1', { text: 'Validators & actions' }));
  const body = el('div', { class: 'two-columns' });
  main.append(body);
  const [kind, ...name] = (rest || '').split('/');
  const chosen = name.join('/');
  api('GET', '/api/plugins').then(report => {
    const failures = report.failures || [];
    // Each by the name that reaches it: qualified where another plugin answers the bare one.
    const validators = report.plugins.flatMap(p => p.validators.map(v => {
      const reached = entryName(p, 'duplicate_validator', v.name, v.version, failures);
      return { ...v, name: reached.slice(0, reached.lastIndexOf('@')) };
    }));
    const actions = report.plugins.flatMap(p => p.actions.map(a => {
      const reached = entryName(p, 'duplicate_action', a.key, a.version, failures);
      return { ...a, key: reached.slice(0, reached.lastIndexOf('@')) };
    }));
    body.append(validatorForm(validators), actionForm(actions));
    const select = kind === 'validator' ? document.getElementById('validator') : kind === 'action' ? document.getElementById('action') : null;
    if (select && [...select.options].some(o => o.value === chosen)) {
      select.value = chosen;
      select.dispatchEvent(new Event('change'));
      (kind === 'validator' ? document.getElementById('validator-value') : select).focus();
      document.getElementById(kind === 'validator' ? 'validators' : 'actions').scrollIntoView({ block: 'nearest' });
    }
  }).catch(error => body.append(errorCard(error, 'The plugin report could not be read')));
};
