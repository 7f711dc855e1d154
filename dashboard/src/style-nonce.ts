// The dashboard's CSP is `style-src 'self' 'nonce-…'` with a nonce new on every page load
// (api/middleware/dashboard.ts): stylesheets come as files, and a <style> element is applied only
// when it carries that nonce. Parsed markup (an injection that got into a page) never does; the
// elements our own scripts create (xterm.js's renderer makes its theme and size rules as <style>
// elements and takes no nonce option) get it here, at creation and before insertion (a nonce set
// on an element already inserted is never applied). Scripts are `script-src 'self'` only, so
// nothing but our bundle runs this path. Imported first by main.tsx.
const nonce = document.querySelector<HTMLMetaElement>('meta[name="style-nonce"]')?.content ?? '';

if (nonce) {
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function createElement(this: Document, tag: string, options?: ElementCreationOptions) {
    const el = create.call(this, tag, options);
    if (tag.toLowerCase() === 'style') el.setAttribute('nonce', nonce);
    return el;
  } as typeof Document.prototype.createElement;
}

export {};
