// Where a sign-in may send the browser afterwards (`next`): a page of this service's dashboard,
// nothing else. The one check for every post-login redirect (the single sign-on routes and the
// dashboard's sign-in form): a browser resolves `/\evil.example` or `/<tab>/evil.example` to
// another site, and the token travels in the fragment of that redirect. Pure, so the dashboard
// imports it too.

/** Paths the API owns (api/middleware/dashboard.ts): some of them redirect, and a redirect carries the fragment along. */
const NOT_A_PAGE = /^\/(api|mcp|health)(\/|$)/i;
/**
 * Backslashes and control characters (C0, DEL, C1), and the encoded backslash and C0/DEL bytes:
 * browsers drop or reinterpret them (the encoded C1 range is left alone: those bytes are UTF-8).
 */
const UNSAFE = /[\\\u0000-\u001f\u007f-\u009f]|%(5c|[01][0-9a-f]|7f)/i;

/**
 * `next` as the path (and query) of a dashboard page of `origin`, or null when it is not one:
 * it must start with a single `/`, hold no backslash or control character, resolve (as a URL
 * against `origin`) to `origin` itself, and not be a path of the API. The answer is the resolved
 * form (dots removed, no fragment), so what is checked is what the browser gets.
 */
export function sameOriginPath(next: string, origin: string): string | null {
  if (!next.startsWith('/') || next.startsWith('//') || UNSAFE.test(next)) return null;
  let own: URL;
  let url: URL;
  try {
    own = new URL(origin);
    url = new URL(next, own);
  } catch {
    return null;
  }
  if (url.origin !== own.origin || NOT_A_PAGE.test(url.pathname)) return null;
  return url.pathname + url.search;
}
