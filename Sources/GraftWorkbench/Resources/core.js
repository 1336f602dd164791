// `app.js`, part 1: helpers every view uses — building DOM nodes (never
// from HTML text: plugin output and names are shown as text or inside the
// sandboxed frame only), calling the JSON API, banners, the live channel
// and the hash router.
'use strict';
// Exposed for tests and `graft bench workbench`: timings and state.
const wb = window.graftWorkbench = {
  timings: {}, info: null, log: [], view: null, socketOpen: false,
  handlers: { log: [], render: [], swap: [], flow: [], attached: [], hello: [] },
};
const LOG_KEPT = 1000;
// The nonce the page's answer allows scripts by (read while this script runs: the DOM hides it after): only the
// Accessibility section's frame uses it, for axe-core.
const PAGE_NONCE = (document.currentScript && document.currentScript.nonce) || '';

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== 'string') node[key] = value;
    else node.setAttribute(key, value === true ? '' : value);
  }
  // Children may be nested arrays (a map returning [separator, node, text]): flatten them all.
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function clear(node) { while (node.firstChild) node.firstChild.remove(); return node; }
function json(value) { return JSON.stringify(value); }
function pretty(value) { return JSON.stringify(value, null, 2); }

class ApiError extends Error {
  constructor(code, message, status) { super(message); this.code = code; this.status = status; }
}

async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) { init.headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }
  let response;
  // A request that never reached the server (it is gone, or the network is) is said so, in words.
  try { response = await fetch(path, init); } catch (e) { throw new ApiError('server_unreachable', 'the workbench server cannot be reached; nothing was sent.', 0); }
  if (response.status === 204) return null;
  const text = await response.text();
  let value = null;
  try { value = text ? JSON.parse(text) : null; } catch (e) { throw new ApiError('invalid_json', `${path} answered something that is not JSON`, response.status); }
  if (!response.ok) {
    const error = (value && value.error) || {};
    throw new ApiError(error.code || `http_${response.status}`, error.message || response.statusText, response.status);
  }
  return value;
}

function errorText(error) { return error.code ? `${error.code}: ${error.message}` : String(error); }

// Banners that pass go after 4 s; at most three of them at once, and a
// text already shown is not shown twice (its clock starts again).
const BANNERS_SHOWN = 3;
function banner(kind, text, options) {
  const sticky = options && options.sticky;
  const box = document.getElementById('banners');
  // While the page says the server is gone, a request that could not reach it adds nothing.
  if (kind === 'error' && wb.serverGone && !sticky && text.startsWith('server_unreachable:')) return null;
  for (const old of box.querySelectorAll('.banner')) {
    if (old.dataset.text !== text || old.dataset.kind !== kind) continue;
    clearTimeout(old.timer);
    if (sticky) {
      // Asked to stay: it stays, under its key.
      old.dataset.sticky = '';
      if (options.key) old.dataset.key = options.key;
    } else if (!('sticky' in old.dataset)) {
      old.timer = setTimeout(() => old.remove(), 4000);
    }
    return old;
  }
  const node = el('div', { class: `banner ${kind}`, role: kind === 'error' ? 'alert' : 'status', dataset: { text, kind } },
    el('span', { class: 'banner-text', text }),
    el('button', { class: 'banner-close', type: 'button', title: 'dismiss', text: '×', onclick: () => node.remove() }));
  if (options && options.key) node.dataset.key = options.key;
  if (sticky) node.dataset.sticky = '';
  box.append(node);
  const passing = [...box.querySelectorAll('.banner:not([data-sticky])')];
  for (const old of passing.slice(0, Math.max(0, passing.length - BANNERS_SHOWN))) old.remove();
  if (!sticky) node.timer = setTimeout(() => node.remove(), 4000);
  return node;
}

// The part of an address after `#/VIEW/`, decoded; null when it does not
// decode (a `%` that starts no UTF-8 character, say).
function decodedPart(text) {
  try { return decodeURIComponent(text); } catch (e) { return null; }
}

// Removes the banners kept for `key` (a plugin file's path).
function dropBanners(key) {
  for (const node of document.querySelectorAll('#banners .banner')) if (node.dataset.key === key) node.remove();
}

function errorCard(error, title) {
  return el('div', { class: 'error-card', id: 'error-card', role: 'alert' },
    el('strong', { text: title || 'This component failed' }),
    el('code', { class: 'error-code', text: error.code }),
    el('p', { class: 'error-message', text: error.message }));
}

// Chromium runs sandboxed frames in a process of their own and ends it with the last of them: a switch of component,
// whose view replaces the render's frame, waited for a new process (about a third of the switch). An empty sandboxed
// frame that stays keeps that process; it is added once a render has made the process (made at the page's start, it
// cost the first page a third more).
function keepFrameProcess() {
  if (document.getElementById('frame-keeper')) return;
  document.body.append(el('iframe', { id: 'frame-keeper', sandbox: '', srcdoc: '', hidden: true, tabindex: '-1', 'aria-hidden': 'true', title: 'kept empty' }));
}

// Plugin output: HTML only inside a frame with no rights at all (an
// opaque origin, no script, no forms, no navigation); any other media
// type as text. Calls `shown` once the output is on screen.
function outputView(mediaType, output, shown, id) {
  if (mediaType === 'text/html') {
    const frame = el('iframe', { class: 'render-frame', id: id || null, title: 'component output' });
    frame.setAttribute('sandbox', '');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.addEventListener('load', () => { keepFrameProcess(); if (shown) shown(frame); }, { once: true });
    frame.srcdoc = output;
    return frame;
  }
  const text = el('pre', { class: 'render-text', id: id ? `${id}-text` : null, text: output });
  if (shown) requestAnimationFrame(() => shown(text));
  return text;
}

function warningList(warnings) {
  if (!warnings || !warnings.length) return null;
  return el('ul', { class: 'warnings' }, warnings.map(w =>
    el('li', { class: 'warning', dataset: { code: w.code } }, el('code', { text: w.code }), ' ', w.message)));
}

// --- the live channel --------------------------------------------------
function connectLive() {
  const indicator = document.getElementById('live');
  const socket = new WebSocket(`ws://${location.host}/live`);
  socket.addEventListener('open', () => {
    wb.socketOpen = true;
    indicator.textContent = 'live'; indicator.className = 'live on';
    dropBanners('server-gone');
    if (wb.everConnected && wb.serverGone) banner('info', 'The workbench server is back.');
    wb.everConnected = true;
    wb.serverGone = false;
  });
  socket.addEventListener('close', () => {
    wb.socketOpen = false;
    indicator.textContent = 'offline, reconnecting…'; indicator.className = 'live off';
    // Once the page had the server, losing it is said plainly, and stays said until it is back.
    if (wb.everConnected && !wb.serverGone) {
      wb.serverGone = true;
      banner('error', 'The workbench server is gone (stopped, or its terminal closed): nothing on this page is live. ' +
        'It reconnects by itself when the server is back; a new run needs the new address it prints.', { sticky: true, key: 'server-gone' });
    }
    setTimeout(connectLive, 1000);
  });
  socket.addEventListener('message', event => {
    let message;
    try { message = JSON.parse(event.data); } catch (e) { return; }
    if (message.type === 'log') {
      wb.log.push(...message.records);
      if (wb.log.length > LOG_KEPT) wb.log.splice(0, wb.log.length - LOG_KEPT);
    }
    for (const handler of wb.handlers[message.type] || []) handler(message);
  });
}

// Swaps matter on every page: a refused build is a banner that stays.
wb.handlers.swap.push(message => {
  if (message.outcome === 'failed') {
    const who = message.plugin || message.path;
    const error = `${message.error.code}: ${message.error.message}`;
    // Without an old version no build of it ran: nothing keeps serving.
    const text = message.oldVersion
      ? `Rejected build of ${who}: ${error} The previous build keeps serving.`
      : `Could not load ${who}: ${error}`;
    dropBanners(message.path);
    banner('error', text, { sticky: true, key: message.path });
  } else {
    // A good build of that file answers its earlier failure: the red banner goes.
    dropBanners(message.path);
    banner('info', message.summary);
  }
});
wb.handlers.hello.push(message => {
  wb.info = message;
  document.querySelector('[data-nav=flow]').hidden = !message.flow;
  document.querySelector('[data-nav=attach]').hidden = !message.attach;
});

// --- views -------------------------------------------------------------
const views = {};
let leaving = null;

function route() {
  // `#/VIEW/ARGUMENT?QUERY`: the query (a component's shared inputs or story) is read apart, undecoded.
  const [hash, query] = (location.hash || '#/plugins').split('?');
  const [, name, ...rest] = hash.split('/');
  const view = views[name] || views.plugins;
  if (leaving) { try { leaving(); } catch (e) {} leaving = null; }
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('current', link.dataset.nav === name);
  const main = clear(document.getElementById('view'));
  document.body.dataset.view = name || 'plugins';
  wb.view = name;
  const argument = decodedPart(rest.join('/'));
  if (argument === null) {
    main.append(el('h1', { text: 'Not a valid address' }), errorCard(
      { code: 'invalid_reference', message: `${location.hash} does not decode: it holds a % escape that is no UTF-8 text. Pick an entry from the sidebar.` },
      'This address names nothing'));
    return;
  }
  leaving = view(main, argument, new URLSearchParams(query || '')) || null;
}

function keyed(handlers, handler) {
  handlers.push(handler);
  return () => { const at = handlers.indexOf(handler); if (at >= 0) handlers.splice(at, 1); };
}

// A size for people: "64 MiB", "1.5 KiB".
function sizeText(bytes) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return unit === 0 ? `${bytes} bytes` : `${Math.round(value * 10) / 10} ${units[unit]}`;
}
