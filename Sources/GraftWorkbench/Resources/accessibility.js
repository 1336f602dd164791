// `app.js`, part 5b: the Accessibility section's engine — axe-core run over
// one component's render, in a frame of its own: sandboxed without the
// page's origin (its scripts reach nothing of the workbench), with a policy
// that runs only axe's script (a nonce the component cannot know), so the
// component's own scripts never run. The rules that judge a whole page
// (title, language, landmarks) are left out: a component sits in a page.
const AXE_PAGE_RULES = ['document-title', 'html-has-lang', 'html-lang-valid', 'landmark-one-main', 'page-has-heading-one', 'region', 'bypass'];
let axeScript = null;

async function axeSource() {
  if (axeScript !== null) return axeScript;
  const response = await fetch('/api/axe', { credentials: 'same-origin' });
  if (!response.ok) {
    let message = `axe-core could not be read (${response.status})`;
    try { message = (await response.json()).error.message; } catch (e) {}
    throw new ApiError('axe_unavailable', message, response.status);
  }
  axeScript = await response.text();
  return axeScript;
}

// Runs axe over `html`; resolves to its violations ({id, impact, help, nodes}).
async function checkAccessibility(html) {
  const source = await axeSource();
  // The page's nonce: the frame inherits the page's policy, which runs only scripts carrying it.
  const nonce = PAGE_NONCE;
  if (!nonce) throw new Error('this page was served without a script nonce: reload it');
  const runner = `(${function (nonce, rules) {
    const off = {};
    for (const rule of rules) off[rule] = { enabled: false };
    // The real body: an element named `body` in the render makes `document.body` say something else.
    const body = Object.getOwnPropertyDescriptor(Document.prototype, 'body').get.call(document);
    axe.run(body, { rules: off, resultTypes: ['violations'] })
      .then(result => parent.postMessage({ nonce, violations: result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ')), count: v.nodes.length })) }, '*'))
      .catch(error => parent.postMessage({ nonce, error: String(error) }, '*'));
  }})(${JSON.stringify(nonce)}, ${JSON.stringify(AXE_PAGE_RULES)})`;
  // One check at a time: an earlier render's frame goes (its result would be stale).
  for (const old of document.querySelectorAll('.a11y-frame')) old.remove();
  const frame = el('iframe', { class: 'a11y-frame', title: 'accessibility check (hidden)', tabindex: -1, 'aria-hidden': 'true', inert: true });
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.srcdoc = '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; script-src 'nonce-${nonce}'">` +
    `<title>a component's render</title></head><body>${html}<script nonce="${nonce}">${source.replaceAll('</script', '<\\/script')}\n${runner}</script></body></html>`;
  return new Promise((resolve, reject) => {
    const done = (finish) => { clearTimeout(timer); window.removeEventListener('message', listen); frame.remove(); finish(); };
    const listen = event => {
      if (event.source !== frame.contentWindow || !event.data || event.data.nonce !== nonce) return;
      done(() => event.data.error ? reject(new Error(`axe failed: ${event.data.error}`)) : resolve(event.data.violations));
    };
    const timer = setTimeout(() => done(() => reject(new Error('the check did not finish in 10 s (the render may hold markup that swallowed the check’s script)'))), 10000);
    window.addEventListener('message', listen);
    document.body.append(frame);
  });
}
