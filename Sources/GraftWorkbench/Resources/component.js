// `app.js`, part 6: the Component page — the contract, the live render (a
// session on the server: a real instance from the debugConfig), controls
// built from the typed inputs that re-render as they change, the
// interactions as buttons, simulated events, and the actions panel.
// What this browser keeps for a component (a private window, or storage refused, keeps nothing).
function knownInteractions(reference) { return kept(`graft-wb-interactions:${reference}`, []); }
function rememberInteraction(reference, action) {
  const known = knownInteractions(reference);
  if (!known.includes(action)) keep(`graft-wb-interactions:${reference}`, [...known, action]);
}

// The canvas's zooms, in percent.
const ZOOMS = [50, 75, 100, 150, 200];

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

views.component = (main, reference, query, options) => {
  let session = null, shownSequence = 0, controls = [], contractKey = '', declared = [], plugin = null, contract = null;
  let inFlight = false, pending = false, frame = null;
  // The address is rewritten with the page's state only once the state it named has been applied.
  let opened = false;
  // Set when another view takes the page: work still in flight (the session opening, a play) stops there.
  let left = false;
  // The story files' stories of this component (`/api/stories`), with their play steps.
  let fileStories = [], pluginID = null, themeFromAddress = false, stateTimer = null;
  const canvasOnly = !!(options && options.canvasOnly);
  // Settled once the first render (or its error card) is on screen.
  let shownOnce;
  const firstShown = new Promise(resolve => { shownOnce = resolve; });
  delete document.body.dataset.stateApplied;
  wb.timings.renders = [];
  const title = el('h1', { id: 'component-title' }, 'Component ', el('code', { text: reference }));
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
    writeState();
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
  const showBackground = () => {
    canvas.classList.remove('bg-checker', 'bg-light', 'bg-dark');
    canvas.classList.add(`bg-${background.value}`);
  };
  const background = el('select', { id: 'canvas-background', onchange: () => { showBackground(); writeState(); } },
    [['light', 'light'], ['dark', 'dark'], ['checker', 'checkered']].map(([value, text]) => el('option', { value, text })));
  const showZoom = () => canvas.style.setProperty('--zoom', String(Number(zoom.value) / 100));
  const zoom = el('select', { id: 'canvas-zoom', onchange: () => { showZoom(); writeState(); } },
    ZOOMS.map(z => el('option', { value: z, text: `${z}%`, selected: z === 100 })));
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
      labelled('save the controls as', storyName), el('button', { type: 'submit', class: 'small', text: 'save' }),
      el('button', { type: 'button', class: 'small', id: 'story-save-file', text: 'save to story file',
        title: 'into the workbench’s stories folder, for graft test and every tester', onclick: () => saveStoryToFile() })),
    el('div', { class: 'form-row' },
      el('button', { type: 'button', class: 'small', id: 'copy-link', text: 'copy link', onclick: () => copy(shareLink(), 'link') }),
      el('button', { type: 'button', class: 'small', id: 'copy-command', text: 'copy graft try', onclick: () => copy(tryCommand(), 'command') })),
    shareBox);
  const panel = actionsPanel({ component: reference.split('@')[0] });
  // Play: the chosen story's steps, played one at a time on this page's instance, each result as it comes.
  const playSteps = el('ol', { class: 'play-steps', id: 'play-steps' });
  const playSummary = el('p', { class: 'note', id: 'play-summary', role: 'status' });
  const playButton = el('button', { type: 'button', id: 'play-button', text: 'play', onclick: () => runPlay() });
  const playCard = el('section', { class: 'card', id: 'play-card' }, el('h2', { text: 'Play' }), playSteps,
    el('div', { class: 'form-row' }, playButton), playSummary);
  // Accessibility: axe-core over the component's own HTML, after each render (a moment after, so typing never waits).
  const a11ySummary = el('p', { class: 'note', id: 'a11y-summary', role: 'status', text: 'Checked after each HTML render.' });
  const a11yResults = el('ul', { class: 'a11y-results', id: 'a11y-results' });
  let a11yTimer = null, lastHTML = null, a11yRun = 0;
  const a11yCard = el('section', { class: 'card', id: 'a11y-card' }, el('h2', { text: 'Accessibility' }), a11ySummary, a11yResults,
    el('div', { class: 'form-row' }, el('button', { type: 'button', class: 'small', id: 'a11y-button', text: 'check again',
      onclick: () => { if (lastHTML !== null) runA11y(lastHTML); } })));

  // The page: the render in the middle, always in view; the docs, stories,
  // controls, interactions, events and actions in a panel below it or on its
  // right (or hidden), scrolling on its own.
  const page = el('div', { class: 'component-page', id: 'component-page', dataset: { panel: panelPlace() } });
  let lastShownPlace = page.dataset.panel === 'hidden' ? 'bottom' : page.dataset.panel;
  const panelToggle = el('button', { type: 'button', class: 'small', id: 'panel-toggle', 'aria-controls': 'panel',
    title: 'Show or hide the panel (a)', onclick: () => placePanel(page.dataset.panel === 'hidden' ? lastShownPlace : 'hidden') });
  const panelMove = el('button', { type: 'button', class: 'small', id: 'panel-position', 'aria-controls': 'panel',
    title: 'The panel at the bottom or on the right (d)', onclick: () => placePanel(page.dataset.panel === 'right' ? 'bottom' : 'right') });
  const fullscreenButton = el('button', { type: 'button', class: 'small', id: 'fullscreen', text: 'fullscreen',
    title: 'The render fullscreen (f)', onclick: () => toggleFullscreen() });
  const canvasLink = el('a', { class: 'tool-link', id: 'canvas-only', href: `#/canvas/${encodeURIComponent(reference)}`,
    target: '_blank', rel: 'noopener', text: 'canvas only', title: 'This render alone, in a tab of its own' });
  const stage = el('section', { class: 'stage', id: 'stage', tabindex: -1, 'aria-label': `Render of ${reference}` },
    el('div', { class: 'canvas-head' }, meta), canvas, renderWarnings);
  const controlsCard = el('section', { class: 'card', id: 'controls-card' }, el('h2', { text: 'Controls' }), controlsProblem, controlsBox);
  const interactionsCard = el('section', { class: 'card', id: 'interactions-card' }, el('h2', { text: 'Interactions' }), interactionsBox, note,
    el('p', { class: 'muted frame-note', id: 'frame-note', text: 'The component’s HTML is shown in a frame with no rights ' +
      '(no scripts, forms or navigation), so its own buttons do nothing there: press them here.' }));
  const emitsCard = el('section', { class: 'card', id: 'emits-card' }, el('h2', { text: 'Simulate an event' }), emitsBox);
  const sections = [['Docs', docsBox], ['Stories', storiesCard], ['Play', playCard], ['Controls', controlsCard], ['Interactions', interactionsCard],
    ['Events', emitsCard], ['Accessibility', a11yCard], ['Actions', panel.node]];
  const panelBox = el('section', { class: 'panel', id: 'panel', 'aria-label': 'Docs, stories, controls, interactions, events and actions' },
    el('nav', { class: 'panel-index', 'aria-label': 'Panel sections' }, sections.map(([name, node]) =>
      el('button', { type: 'button', class: 'small panel-jump', dataset: { to: name.toLowerCase() }, text: name,
        onclick: () => panelBox.scrollTo({ top: node.offsetTop - panelBox.querySelector('.panel-index').offsetHeight - 4 }) }))),
    sections.map(([, node]) => node));
  page.append(
    el('div', { class: 'component-head' }, title,
      el('div', { class: 'canvas-tools', id: 'canvas-tools' }, labelled('size', sizeSelect), labelled('width', widthInput),
        labelled('height', heightInput), labelled('background', background), labelled('zoom', zoom), labelled('media type', mediaSelect),
        el('div', { class: 'view-tools' }, panelToggle, panelMove, fullscreenButton, canvasLink))),
    stage, panelBox);
  main.append(page);
  placePanel(page.dataset.panel, false);

  // Where the panel sits: `bottom`, `right` or `hidden`, kept in this browser when `lasting`.
  function placePanel(place, lasting = true) {
    if (!PANEL_PLACES.includes(place)) return;
    if (place !== 'hidden') lastShownPlace = place;
    page.dataset.panel = place;
    if (lasting) keep('graft-wb-panel', place);
    panelToggle.textContent = place === 'hidden' ? 'show panel' : 'hide panel';
    panelToggle.setAttribute('aria-expanded', String(place !== 'hidden'));
    panelMove.textContent = place === 'right' ? 'panel below' : 'panel right';
    panelMove.disabled = place === 'hidden';
    writeState();
  }

  // Fullscreen through the browser; where it refuses (no user gesture, a
  // frame that may not), the render fills the window instead.
  async function toggleFullscreen() {
    if (document.fullscreenElement) { await document.exitFullscreen().catch(() => {}); return; }
    if (page.dataset.maximized === 'true') { delete page.dataset.maximized; return; }
    try { await stage.requestFullscreen(); } catch (e) { page.dataset.maximized = 'true'; }
  }

  function stepStory(by) {
    const at = storySelect.selectedIndex + by;
    if (at < 0 || at >= storySelect.options.length) return;
    applyStory(storySelect.options[at].value);
  }
  // The canvas alone has no panel and no story list: only fullscreen.
  const stopKeys = addKeys(canvasOnly ? { f: () => toggleFullscreen(), Escape: () => { delete page.dataset.maximized; } } : {
    a: () => placePanel(page.dataset.panel === 'hidden' ? lastShownPlace : 'hidden'),
    d: () => { if (page.dataset.panel !== 'hidden') placePanel(page.dataset.panel === 'right' ? 'bottom' : 'right'); },
    f: () => toggleFullscreen(),
    Escape: () => { delete page.dataset.maximized; },
    'Alt+ArrowDown': () => stepStory(1),
    'Alt+ArrowUp': () => stepStory(-1),
  });
  const stopTheme = keyed(wb.handlers.theme, () => { if (opened) themeFromAddress = false; writeState(); });

  // The page's whole state as an address query: a copied link reopens exactly this.
  function stateQuery() {
    const state = new URLSearchParams();
    if (contract) state.set('inputs', json(collect()));
    if (storySelect.value && storySelect.value !== 'debug') state.set('story', storySelect.value.replace(/^(plugin|file|local):/, ''));
    const width = Number(widthInput.value) || 0, height = Number(heightInput.value) || 0;
    if (width || height) state.set('size', `${width}x${height}`);
    if (background.value !== 'light') state.set('bg', background.value);
    if (zoom.value !== '100') state.set('zoom', zoom.value);
    if (mediaSelect.value !== 'text/html') state.set('media', 'text');
    if (wb.themeChoice && wb.themeChoice !== 'system') state.set('theme', wb.themeChoice);
    if (page.dataset.panel !== 'bottom') state.set('panel', page.dataset.panel);
    return state.toString();
  }

  function writeState() {
    // Until the state the address named is applied, or once another view took the page, the address is not this page's.
    if (!opened || left || !page.isConnected) return;
    const state = stateQuery();
    const tail = `${encodeURIComponent(reference)}${state ? `?${state}` : ''}`;
    history.replaceState(history.state, '', `#/${canvasOnly ? 'canvas' : 'component'}/${tail}`);
    canvasLink.href = `#/canvas/${tail}`;
    document.body.dataset.state = state;
    markSidebarCurrent();
  }

  // The state an address names, before the session opens: what the page shows on its own.
  function applyPageState() {
    if (THEMES.includes(query.get('theme'))) { themeFromAddress = true; setTheme(query.get('theme'), false); }
    if (PANEL_PLACES.includes(query.get('panel'))) placePanel(query.get('panel'), false);
    if ([...background.options].some(o => o.value === query.get('bg'))) { background.value = query.get('bg'); showBackground(); }
    if (ZOOMS.includes(Number(query.get('zoom')))) { zoom.value = query.get('zoom'); showZoom(); }
    if (query.get('media') === 'text') mediaSelect.value = 'text/plain';
  }

  function storyInputs(value) {
    if (!contract) return null;
    if (value === 'debug') return contract.debugConfig || {};
    if (value.startsWith('plugin:')) return ((contract.stories || []).find(s => s.name === value.slice(7)) || {}).config || null;
    if (value.startsWith('local:')) return localStories(reference)[value.slice(6)] || null;
    if (value.startsWith('file:')) { const story = fileStory(value); return story ? story.inputs || contract.debugConfig || {} : null; }
    return null;
  }

  function fileStory(value) { return value.startsWith('file:') ? fileStories.find(s => s.name === value.slice(5)) || null : null; }

  function listStories(selected) {
    clear(storySelect).append(el('option', { value: 'debug', text: 'debugConfig' }),
      ...((contract && contract.stories) || []).map(s => el('option', { value: `plugin:${s.name}`, text: s.name, title: s.description || '' })),
      ...fileStories.map(s => el('option', { value: `file:${s.name}`, text: `${s.name} (story file)`, title: s.description || '' })),
      ...Object.keys(localStories(reference)).sort().map(name => el('option', { value: `local:${name}`, text: `${name} (saved here)` })));
    if (selected && [...storySelect.options].some(o => o.value === selected)) storySelect.value = selected;
    showPlay();
  }

  // The play panel for the chosen story: its steps, none played yet.
  function showPlay() {
    const story = fileStory(storySelect.value);
    const steps = (story && story.steps) || [];
    clear(playSteps).append(...steps.map((summary, i) => el('li', { class: 'play-step', dataset: { index: i, state: 'pending' } },
      el('code', { text: summary }), el('span', { class: 'play-failure' }))));
    playButton.disabled = !story;
    playSummary.textContent = story
      ? (steps.length ? `${steps.length} step${steps.length === 1 ? '' : 's'} to play.` : 'This story has no steps: play renders it from the start.')
      : 'Choose a story from a story file to play its steps (docs/Stories.md).';
  }

  // Plays the chosen story from its start, on a fresh instance, one step at a time, as `graft test` does.
  async function runPlay() {
    const story = fileStory(storySelect.value);
    if (!story || !session) return;
    showPlay();
    // The story's steps stay the ones shown while they play.
    playButton.disabled = true;
    storySelect.disabled = true;
    playSummary.textContent = 'playing…';
    delete document.body.dataset.playDone;
    let passed = 0, last = null;
    try {
      const size = story.size || { width: 0, height: 0 };
      last = await api('POST', `/api/sessions/${session}/play`, { inputs: story.inputs || contract.debugConfig || {},
        width: size.width, height: size.height, html: story.mediaType !== 'text/plain' });
      mediaSelect.value = story.mediaType === 'text/plain' ? 'text/plain' : 'text/html';
      showRender(last);
      const steps = story.play || [];
      for (const [index, step] of steps.entries()) {
        if (left) return;
        const item = playSteps.children[index];
        item.dataset.state = 'running';
        const answer = await api('POST', `/api/sessions/${session}/step`, { step, index });
        item.dataset.state = answer.result.passed ? 'passed' : 'failed';
        item.querySelector('.play-failure').textContent = answer.result.failure || '';
        if (answer.result.passed) passed += 1;
        last = answer.render;
        showRender(last);
      }
      playSummary.textContent = `${passed} of ${steps.length} step${steps.length === 1 ? '' : 's'} passed` + (passed === steps.length ? '.' : ': see the failures above.');
      document.body.dataset.playDone = passed === steps.length ? 'passed' : 'failed';
    } catch (error) {
      playSummary.textContent = `The play stopped: ${errorText(error)}`;
      document.body.dataset.playDone = 'stopped';
    }
    if (left) return;
    // The controls show where the story left the inputs.
    if (last && last.inputs) buildControls(contract, last.inputs);
    playButton.disabled = false;
    storySelect.disabled = false;
    writeState();
  }

  // Saves the controls and the size as a story in the workbench's stories folder (`graft test` runs it).
  async function saveStoryToFile() {
    const name = storyName.value.trim();
    if (!name) { storyName.focus(); note.textContent = 'name the story first'; return; }
    try {
      const saved = await api('POST', '/api/stories', { component: reference, name, inputs: collect(),
        width: Number(widthInput.value) || 0, height: Number(heightInput.value) || 0, html: mediaSelect.value === 'text/html' });
      await loadFileStories();
      listStories(`file:${name}`);
      storyName.value = '';
      note.textContent = `story “${name}” saved in ${saved.file}`;
      refreshSidebar();
      writeState();
    } catch (error) {
      note.textContent = `not saved: ${errorText(error)}`;
    }
  }

  async function loadFileStories() {
    try {
      const answer = await api('GET', '/api/stories');
      const mine = (answer.components || []).find(c => c.plugin === (plugin ? plugin.id : pluginID) && c.component === `${contract.key}@${contract.version}`);
      fileStories = mine ? mine.stories.filter(s => s.source === 'file') : [];
    } catch (e) { fileStories = []; }
  }

  function applyStory(value) {
    const inputs = storyInputs(value);
    if (!inputs) return;
    storySelect.value = value;
    showPlay();
    const story = fileStory(value);
    if (story) {
      // A story file's story gives a size and a media type too: one fresh start with all three.
      const size = story.size || { width: 0, height: 0 };
      mediaSelect.value = story.mediaType === 'text/plain' ? 'text/plain' : 'text/html';
      buildControls(contract, inputs);
      writeState();
      api('POST', `/api/sessions/${session}/play`, { inputs, width: size.width, height: size.height, html: mediaSelect.value === 'text/html' })
        .then(report => showRender(report)).catch(error => banner('error', errorText(error)));
      return;
    }
    buildControls(contract, inputs);
    writeState();
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
    return `${location.origin}${location.pathname}#/component/${encodeURIComponent(reference)}?${stateQuery()}`;
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
    writeState();
    if (!session) return;
    try { showRender(await api('POST', `/api/sessions/${session}/size`, { width: Number(widthInput.value) || 0, height: Number(heightInput.value) || 0 })); }
    catch (error) { banner('error', errorText(error)); }
  }

  function showSize(size) {
    if (!size) return;
    canvas.style.setProperty('--frame-width', size.width > 0 ? `${size.width}px` : '100%');
    canvas.style.setProperty('--frame-height', size.height > 0 ? `${size.height}px` : '100%');
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
    // The address follows the typing once it pauses (rewriting it on every key cost each change a few milliseconds).
    clearTimeout(stateTimer);
    stateTimer = setTimeout(writeState, 300);
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

  function scheduleA11y(report) {
    clearTimeout(a11yTimer);
    if (report.error || report.mediaType !== 'text/html') {
      lastHTML = null;
      a11ySummary.textContent = 'Only HTML renders are checked.';
      clear(a11yResults);
      return;
    }
    lastHTML = report.output;
    a11yTimer = setTimeout(() => runA11y(report.output), 400);
  }

  // axe over the render: serious and critical findings first, each with its rule and the elements that break it.
  async function runA11y(html) {
    const run = ++a11yRun;
    a11ySummary.textContent = 'checking…';
    delete document.body.dataset.a11yChecked;
    let violations;
    try { violations = await checkAccessibility(html); } catch (error) {
      if (run !== a11yRun || !page.isConnected) return;
      a11ySummary.textContent = `Not checked: ${errorText(error)}`;
      clear(a11yResults);
      document.body.dataset.a11yChecked = 'unavailable';
      return;
    }
    if (run !== a11yRun || !page.isConnected) return;
    const rank = { critical: 0, serious: 1, moderate: 2, minor: 3 };
    violations.sort((a, b) => (rank[a.impact] ?? 4) - (rank[b.impact] ?? 4));
    const grave = violations.filter(v => v.impact === 'serious' || v.impact === 'critical').length;
    a11ySummary.textContent = grave
      ? `${grave} serious or critical issue${grave === 1 ? '' : 's'} in this render (graft test --a11y fails on these).`
      : `No serious or critical issue${violations.length ? `; ${violations.length} moderate or minor` : ''}.`;
    clear(a11yResults).append(...violations.map(v => el('li', { class: 'a11y-result', dataset: { rule: v.id, impact: v.impact } },
      el('span', { class: 'impact', text: v.impact }), ' ', el('code', { text: v.id }), `: ${v.help} `,
      el('span', { class: 'muted', text: `(${v.count}: ${v.nodes.join(', ')})` }))));
    document.body.dataset.a11yChecked = grave ? 'issues' : 'clean';
  }

  function shown(report, startedAt) {
    shownOnce();
    scheduleA11y(report);
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
    applyPageState();
    try {
      report = await api('POST', '/api/sessions', { component: reference, html: mediaSelect.value === 'text/html' });
      // Left while it opened: its session is closed here, since the view's cleanup never knew it.
      if (left) { api('DELETE', `/api/sessions/${report.session}`).catch(() => {}); return; }
    } catch (error) {
      if (left) return;
      // Nothing to tell stories, controls or interactions about: the page is the error.
      main.replaceChildren(title, errorCard(error, `${reference} could not be opened`));
      return;
    }
    try {
      session = report.session;
      document.body.dataset.session = session;
      panel.scopeTo(report.instance);
      buildControls(report.contract || { inputs: [], outputs: [] }, report.inputs);
      declared = (report.contract && report.contract.interactions) || [];
      buildInteractions();
      showRender(report);
      pluginID = report.plugin;
      // The render first: what the panel reads next waits until it is on screen, so the frame's load does not
      // queue behind two answers and their parsing (a sidebar switch took 110-140 ms, most of it here).
      // (At most a second: a text render waits for an animation frame, which a hidden tab does not give.)
      await Promise.race([firstShown, new Promise(resolve => setTimeout(resolve, 1000))]);
      if (left) return;
      // Who ships it, and what its plugin may touch, for the docs panel: the sidebar's report (refreshed on every
      // swap) when it has one.
      const shipping = sidebarState.report ? Promise.resolve(sidebarState.report) : api('GET', '/api/plugins');
      shipping.then(answer => {
        plugin = answer.plugins.find(p => p.id === report.plugin) || null;
        if (contract && !left) clear(docsBox).append(docsView(contract, plugin));
      }).catch(() => {});
      // A story by name, then a shared link's inputs, replace the debugConfig; then the link's size.
      await loadFileStories();
      if (left) return;
      listStories('debug');
      let inputs = null;
      const name = query.get('story');
      if (name) {
        const value = [`plugin:${name}`, `file:${name}`, `local:${name}`].find(v => storyInputs(v));
        if (value) { storySelect.value = value; inputs = storyInputs(value); } else banner('error', `no story “${name}” for ${reference}`);
        const story = value && fileStory(value);
        if (story) {
          // Its size and media type, unless the address names its own.
          if (story.size && !query.get('size')) query.set('size', `${story.size.width}x${story.size.height}`);
          if (story.mediaType === 'text/plain' && mediaSelect.value !== 'text/plain') {
            mediaSelect.value = 'text/plain';
            showRender(await api('POST', `/api/sessions/${session}/media-type`, { html: false }));
          }
        }
        showPlay();
      }
      const shared = query.get('inputs');
      if (shared) {
        try { inputs = JSON.parse(shared); note.textContent = 'inputs from the link'; }
        catch (e) { banner('error', 'the link’s inputs are not JSON; the debugConfig is shown'); }
      }
      if (left) return;
      if (inputs && typeof inputs === 'object') { buildControls(contract, inputs); await sendInputs(); }
      const size = /^(\d{1,6})x(\d{1,6})$/.exec(query.get('size') || '');
      if (size && !left) { widthInput.value = size[1]; heightInput.value = size[2]; sizeSelect.value = matchingSize(); await sendSize(); }
    } catch (error) {
      if (!left) banner('error', errorText(error));
    }
    if (left) return;
    opened = true;
    writeState();
    document.body.dataset.stateApplied = reference;
  })();
  return () => {
    left = true;
    clearTimeout(stateTimer);
    stopTheme();
    // A theme the address named was this page's alone: the one the browser keeps comes back.
    if (themeFromAddress) setTheme(themeChoice(), false);
    clearTimeout(a11yTimer);
    stopKeys();
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    stopRenders();
    panel.stop();
    if (session) api('DELETE', `/api/sessions/${session}`).catch(() => {});
  };
};

// The render alone (`#/canvas/KEY@V?…`, the same state as the component page's address): no header, sidebar or panel.
views.canvas = (main, reference, query) => views.component(main, reference, query, { canvasOnly: true });
