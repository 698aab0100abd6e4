/**
 * The viewer's address: `#/<page>?<params>`, so every view (a filtered table, a sample, a comparison) is a link
 * that can be opened, bookmarked and sent, and the browser's back button works.
 * @module
 */

/** Returns the page and parameters of `hash` (default: the runs page). */
export function parseRoute(hash = location.hash) {
  const text = hash.replace(/^#\/?/, "");
  const at = text.indexOf("?");
  const page = (at < 0 ? text : text.slice(0, at)) || "runs";
  return { page, params: new URLSearchParams(at < 0 ? "" : text.slice(at + 1)) };
}

/** Returns the link to `page` with `params` (an object; arrays repeat a parameter; empty values are left out). */
export function link(page, params = {}) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== null && v !== undefined && v !== "") search.append(key, String(v));
    }
  }
  const query = search.toString();
  return `#/${page}${query ? `?${query}` : ""}`;
}

/** Returns the link of the current page with `changes` applied to its parameters (`null` removes one). */
export function withParams(route, changes) {
  const params = {};
  for (const key of new Set(route.params.keys())) params[key] = route.params.getAll(key);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) {
      delete params[key];
    } else params[key] = value;
  }
  return link(route.page, params);
}

/** Goes to `href` (a `#/…` link) without adding a history entry when `replace`. */
export function go(href, replace = false) {
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  dispatchEvent(new HashChangeEvent("hashchange"));
}
