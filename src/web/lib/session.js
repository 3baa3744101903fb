// The signed-in session: its token (and the token's id, to tell this browser's session
// among the person's tokens) lives in sessionStorage (this tab, until it closes), the
// signed-in person in memory. One transport per page, reading the token each time.
import { createTransport } from "./graphql.js";

const KEY = "pressroom.session";
const listeners = new Set();
const forbiddenListeners = new Set();

let state = { token: null, tokenId: null, me: null, notice: null };
try {
  const stored = JSON.parse(window.sessionStorage.getItem(KEY) || "null");
  if (stored && typeof stored.token === "string") {
    state = { ...state, token: stored.token, tokenId: stored.tokenId || null };
  }
} catch (error) {
  window.sessionStorage.removeItem(KEY);
}

function set(next) {
  state = { ...state, ...next };
  if (state.token) {
    const stored = { token: state.token, tokenId: state.tokenId };
    window.sessionStorage.setItem(KEY, JSON.stringify(stored));
  } else window.sessionStorage.removeItem(KEY);
  listeners.forEach((listener) => listener(state));
}

export const transport = createTransport({
  token: () => state.token,
  onAuthFailure: (message) => end(message),
  onForbidden: () => forbiddenListeners.forEach((listener) => listener()),
});

// A request was refused FORBIDDEN: main.js reads `me` again (departments may have changed).
export function onForbidden(listener) {
  forbiddenListeners.add(listener);
  return () => forbiddenListeners.delete(listener);
}

export function session() {
  return state;
}

export function onSession(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signedIn(token, me, tokenId = null) {
  transport.close();
  set({ token, tokenId, me, notice: null });
}

// Unchanged `me` (read again, the same) keeps its object, so screens do not start over.
export function setMe(me) {
  if (JSON.stringify(me) === JSON.stringify(state.me)) return;
  set({ me });
}

// The token stopped working (expired, revoked, signed out elsewhere): back to sign-in.
export function end(reason) {
  if (!state.token) return;
  transport.close();
  set({
    token: null,
    tokenId: null,
    me: null,
    notice: `${reason || "Your session has ended."} Please sign in again.`,
  });
}

export function signedOut() {
  transport.close();
  set({ token: null, tokenId: null, me: null, notice: "You have signed out." });
}

// What the signed-in person may use: the server's own rules, as it names them in
// `me.access` (it checks every request anyway), and the departments that have a queue.
export function rolesOf(me) {
  const access = new Set(me ? me.access : []);
  return {
    admin: access.has("ADMINS"),
    sales: access.has("SALES"),
    accounts: access.has("READS_LEDGER"),
    seesQuote: access.has("SEES_QUOTES"),
    queues: (me ? me.departments : []).filter((d) => d.hasQueue),
  };
}

// For tests and for the browser console.
window.__pressroom = {
  get connects() {
    return transport.stats.connects;
  },
  drop() {
    transport.drop();
  },
};
