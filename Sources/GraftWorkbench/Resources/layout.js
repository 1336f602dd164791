// `app.js`, part 2: what every page shares beside its view — the theme
// (the system's, light or dark), the keyboard shortcuts, the skip link, the
// sidebar's visibility, and the component page's panel (where it sits, or
// hidden), kept in this browser.

// --- the theme -----------------------------------------------------------
const THEMES = ['system', 'light', 'dark'];
const systemDark = window.matchMedia('(prefers-color-scheme: dark)');

function themeChoice() {
  const chosen = kept('graft-wb-theme', 'system');
  return THEMES.includes(chosen) ? chosen : 'system';
}

// Applies `choice` (and keeps it when `lasting`): the page's colours follow
// `data-theme` on the root, the system's preference when the choice is `system`.
function setTheme(choice, lasting = true) {
  if (!THEMES.includes(choice)) return;
  if (lasting) keep('graft-wb-theme', choice);
  wb.themeChoice = choice;
  const resolved = choice === 'system' ? (systemDark.matches ? 'dark' : 'light') : choice;
  document.documentElement.dataset.theme = resolved;
  const button = document.getElementById('theme-toggle');
  if (button) {
    button.textContent = `Theme: ${choice}`;
    button.setAttribute('aria-label', `Theme: ${choice} (shows ${resolved}); press to change`);
  }
  for (const handler of wb.handlers.theme) handler(choice);
}
wb.handlers.theme = [];
systemDark.addEventListener('change', () => { if (wb.themeChoice === 'system') setTheme('system', false); });

function nextTheme() { setTheme(THEMES[(THEMES.indexOf(wb.themeChoice) + 1) % THEMES.length]); }

// --- what this browser keeps ---------------------------------------------
function kept(key, empty) {
  try { const value = JSON.parse(localStorage.getItem(key)); return value === null ? empty : value; } catch (e) { return empty; }
}
function keep(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) {}
}

// --- the sidebar and the panel ---------------------------------------------
const PANEL_PLACES = ['bottom', 'right', 'hidden'];
function panelPlace() {
  const place = kept('graft-wb-panel', 'bottom');
  return PANEL_PLACES.includes(place) ? place : 'bottom';
}

function toggleSidebar() {
  const hidden = document.body.toggleAttribute('data-sidebar-hidden');
  keep('graft-wb-sidebar-hidden', hidden);
}

// --- keyboard shortcuts ------------------------------------------------------
// Every key the page answers, in the order the help lists them. A view adds
// its own (`addKeys`) while it is shown. Keys typed into a field are the
// field's; only Escape leaves it.
const SHORTCUTS = [
  ['/', 'focus the sidebar’s filter'],
  ['s', 'show or hide the sidebar'],
  ['t', 'theme: system, light, dark'],
  ['?', 'this list of keys'],
  ['a', 'component page: show or hide the panel'],
  ['d', 'component page: panel at the bottom or on the right'],
  ['f', 'component page: the render fullscreen (again, or Escape, to leave)'],
  ['Alt+↓ / Alt+↑', 'component page: next or previous story'],
];
const globalKeys = {
  '/': () => {
    if (document.body.hasAttribute('data-sidebar-hidden')) toggleSidebar();
    const filter = document.getElementById('sidebar-filter');
    if (filter) { filter.focus(); filter.select(); }
  },
  s: toggleSidebar,
  t: nextTheme,
  '?': () => toggleShortcuts(),
};
let viewKeys = {};

// The keys of the view on screen; returns what removes them.
function addKeys(keys) {
  viewKeys = keys;
  return () => { if (viewKeys === keys) viewKeys = {}; };
}

function keyName(event) {
  if (event.altKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) return `Alt+${event.key}`;
  if (event.altKey || event.ctrlKey || event.metaKey) return null;
  return event.key;
}

function inField(target) {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

document.addEventListener('keydown', event => {
  // A dialog (the list of keys) has the keyboard to itself: Escape closes it.
  if (event.defaultPrevented || event.isComposing || document.querySelector('dialog[open]')) return;
  if (event.key === 'Escape' && inField(event.target)) { event.target.blur(); return; }
  if (inField(event.target)) return;
  const name = keyName(event);
  const handler = name && (viewKeys[name] || globalKeys[name]);
  if (!handler) return;
  event.preventDefault();
  handler(event);
});

function toggleShortcuts() {
  let dialog = document.getElementById('shortcuts');
  if (!dialog) {
    dialog = el('dialog', { id: 'shortcuts', 'aria-labelledby': 'shortcuts-title' },
      el('h2', { id: 'shortcuts-title', text: 'Keyboard shortcuts' }),
      el('dl', { class: 'docs-facts' }, SHORTCUTS.map(([key, what]) => [el('dt', {}, el('kbd', { text: key })), el('dd', { text: what })])),
      el('p', { class: 'muted', text: 'Keys typed into a field stay in it; Escape leaves the field.' }),
      el('form', { method: 'dialog' }, el('button', { type: 'submit', id: 'shortcuts-close', text: 'Close' })));
    document.body.append(dialog);
  }
  if (dialog.open) dialog.close(); else dialog.showModal();
}

// --- the skip link -----------------------------------------------------------
// The router owns the address's hash, so the link moves focus itself.
function skipToContent(event) {
  event.preventDefault();
  const target = document.getElementById('stage') || document.getElementById('view');
  target.focus();
}

function startLayout() {
  document.getElementById('skip-link').addEventListener('click', skipToContent);
  document.getElementById('theme-toggle').addEventListener('click', nextTheme);
  document.getElementById('shortcuts-button').addEventListener('click', () => toggleShortcuts());
  if (kept('graft-wb-sidebar-hidden', false) === true) document.body.setAttribute('data-sidebar-hidden', '');
  setTheme(themeChoice(), false);
}
