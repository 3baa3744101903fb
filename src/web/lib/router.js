// History-API routing: the server answers every app path with the same shell, and this
// module decides what to show for location.pathname.
import { html, useEffect, useState } from "./html.js";

const listeners = new Set();

function changed() {
  listeners.forEach((listener) => listener(window.location.pathname + window.location.search));
}

window.addEventListener("popstate", changed);

// `state` goes with the new entry (window.history.state): what the next screen should say.
export function navigate(path, { replace = false, state = null } = {}) {
  if (path === window.location.pathname + window.location.search) return;
  if (replace) window.history.replaceState(state, "", path);
  else window.history.pushState(state, "", path);
  changed();
}

export function useLocation() {
  const [where, setWhere] = useState(window.location.pathname + window.location.search);
  useEffect(() => {
    listeners.add(setWhere);
    return () => listeners.delete(setWhere);
  }, []);
  return where;
}

// `pattern` like "/orders/:id"; returns the parameters, or null when it does not match.
export function match(pattern, path) {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("?")[0].split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params = {};
  for (let i = 0; i < want.length; i += 1) {
    if (want[i].startsWith(":")) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

export function query(path) {
  return new URLSearchParams(path.split("?")[1] || "");
}

// A link inside the app: a real <a href> (open in a new tab works), routed in place.
export function Link({ href, children, ...rest }) {
  function onClick(event) {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  }
  return html`<a href=${href} onClick=${onClick} ...${rest}>${children}</a>`;
}
