/**
 * Small hooks the pages share: data loaded asynchronously, and the `data-ready` mark a page sets once what it
 * shows is on screen (what the tests and the bench wait for).
 * @module
 */
import { useEffect, useState } from "../vendor.js";

/** Returns `{ value, error }` of `load()` (a promise), run again when `deps` change; `value` is `undefined` until then. */
export function useAsync(load, deps) {
  const [state, setState] = useState({ value: undefined, error: null, deps: null });
  useEffect(() => {
    let live = true;
    setState((s) => ({ value: s.value, error: null, deps: null }));
    Promise.resolve().then(load).then(
      (value) => live && setState({ value, error: null, deps }),
      (error) => live && setState({ value: undefined, error, deps }),
    );
    return () => (live = false);
  }, deps);
  const current = state.deps !== null && state.deps.length === deps.length &&
    state.deps.every((d, i) => Object.is(d, deps[i]));
  return current ? state : { value: undefined, error: null };
}

/** Marks the page ready (`<main data-ready="#/…">`) after the render in which `ready` became true. */
export function useReady(ready) {
  useEffect(() => {
    const main = document.querySelector("main");
    if (main) main.dataset.ready = ready ? location.hash || "#/" : "";
  });
}
