// `app.js`, part 5: Validators and actions — try a validator with a value
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
  const payload = el('input', { type: 'text', id: 'action-payload', placeholder: 'event payload (JSON, optional)' });
  const result = el('pre', { class: 'result', id: 'action-result' });
  let fields = [];
  const showParams = () => {
    const chosen = actions.find(a => `${a.key}@${a.version}` === select.value);
    fields = Object.entries(chosen ? chosen.params : {}).map(([key, type]) => ({ key, type, input: typedInput(type, `action-param-${key}`) }));
    clear(params).append(...fields.map(f => el('label', { class: 'param' }, el('span', { text: `${f.key} (${f.type})` }), f.input)));
  };
  // Another validator: its params, and no result of the last one left under it.
  select.addEventListener('change', () => { showParams(); clear(result); });
  select.setAttribute('aria-label', 'Validator');
  showParams();
  const run = async () => {
    const sent = { action: select.value, params: {} };
    for (const f of fields) sent.params[f.key] = readTyped(f.type, f.input);
    if (payload.value.trim()) { try { sent.payload = JSON.parse(payload.value); } catch (e) { result.textContent = 'the payload is not JSON'; return; } }
    try { result.textContent = pretty(await api('POST', '/api/action', sent)); }
    catch (error) { result.textContent = errorText(error); }
  };
  return el('section', { class: 'card', id: 'actions' }, el('h2', { text: 'Actions' }),
    actions.length ? [el('div', { class: 'form-row' }, select), params, payload,
      el('button', { type: 'button', id: 'action-button', text: 'Run', onclick: run }), result]
      : el('p', { class: 'muted', text: 'No plugin provides an action.' }));
}

views.try = main => {
  main.append(el('h1', { text: 'Validators & actions' }));
  const body = el('div', { class: 'two-columns' });
  main.append(body);
  api('GET', '/api/plugins').then(report => {
    const validators = report.plugins.flatMap(p => p.validators);
    const actions = report.plugins.flatMap(p => p.actions);
    body.append(validatorForm(validators), actionForm(actions));
  }).catch(error => body.append(errorCard(error, 'The plugin report could not be read')));
};
