// A subscription that never misses an event: it starts from a snapshot's cursor, keeps
// the cursor of every event it receives, and after any drop (network, server restart,
// SLOW_CONSUMER, a replica restarting) subscribes again from that cursor. A cursor older
// than the server's event log keeps (CURSOR_EXPIRED) cannot be resumed from: `onExpired()`
// then takes a new snapshot and returns (or resolves to) its cursor, and following goes on
// from there. Status: "connecting", "live", "reconnecting", or "failed" (refused: the token
// or the arguments are not accepted; or the cursor expired and there is no `onExpired`).
import { isAuthClose, operationName } from "./graphql.js";

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 10000;
// A server going away on purpose (a rolling restart) closes with this code: the balancer
// already sends new connections elsewhere, so there is nothing to wait for.
const SERVICE_RESTART = 1012;
// The errors that end following for good (waiting will not help), by their code: what
// each means for the screen.
export const FAILURES = {
  UNAUTHENTICATED: "auth",
  FORBIDDEN: "forbidden",
  BAD_REQUEST: "bad-request",
  NOT_FOUND: "not-found",
};

function codeOf(errors) {
  const first = Array.isArray(errors) ? errors[0] : null;
  return (first && first.extensions && first.extensions.code) || null;
}

// `field` names the subscription's root field; `variables.after` is the starting cursor.
export function follow(transport, { query, variables, field, onEvent, onStatus, onFailure, onExpired }) {
  const payload = { query, operationName: operationName(query), variables: { ...variables } };
  let stopped = false;
  let attempt = 0;
  let timer = null;
  let waiting = null;
  let unsubscribe = null;

  function status(name, detail) {
    if (!stopped && onStatus) onStatus(name, detail);
  }

  function later(next, now) {
    const delay = now ? 0 : Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * Math.pow(2, attempt));
    attempt += 1;
    waiting = next;
    timer = setTimeout(() => {
      waiting = null;
      next();
    }, delay);
  }

  // The network is back: try now rather than at the end of the backoff.
  function online() {
    if (stopped || waiting === null) return;
    const next = waiting;
    clearTimeout(timer);
    waiting = null;
    attempt = 0;
    next();
  }
  window.addEventListener("online", online);

  function retry(now) {
    if (stopped) return;
    status("reconnecting");
    later(start, now);
  }

  // A new snapshot, then on from its cursor; a snapshot that fails is taken again later.
  function renew() {
    if (stopped) return;
    status("reconnecting");
    Promise.resolve()
      .then(onExpired)
      .then(
        (cursor) => {
          if (stopped) return;
          payload.variables.after = cursor;
          start();
        },
        () => {
          if (!stopped) later(renew, false);
        },
      );
  }

  function fail(kind, message) {
    status("failed", { kind, message });
    if (onFailure) onFailure({ kind, message });
    if (kind === "auth") transport.authFailed(message);
  }

  function start() {
    if (stopped) return;
    let settled = false;
    const offConnected = transport.onConnected(() => {
      if (!settled) status("live");
    });
    const settle = () => {
      if (settled) return false;
      settled = true;
      offConnected();
      return true;
    };
    const onErrors = (errors) => {
      if (!settle()) return;
      const code = codeOf(errors);
      const message = errors.map((e) => e.message).join(" ");
      const extensions = (errors[0] && errors[0].extensions) || {};
      if (code === "SLOW_CONSUMER") {
        if (extensions.resumeAfter) payload.variables.after = extensions.resumeAfter;
        retry(true);
      } else if (code === "CURSOR_EXPIRED") {
        if (onExpired) renew();
        else fail("expired", message);
      } else if (FAILURES[code]) {
        fail(FAILURES[code], message);
      } else {
        retry(false);
      }
    };
    unsubscribe = transport.subscribe(payload, {
      next(result) {
        if (result.errors && result.errors.length) return onErrors(result.errors);
        const event = result.data && result.data[field];
        if (!event) return;
        attempt = 0;
        // Also used by graphql-ws itself if it ever resubscribes on its own.
        payload.variables.after = event.cursor;
        status("live");
        onEvent(event);
      },
      error(error) {
        if (Array.isArray(error)) return onErrors(error);
        if (!settle()) return;
        if (isAuthClose(error)) {
          fail("auth", error.reason || "The server refused the token.");
        } else if (error && error.code === 4400) {
          fail("bad-request", error.reason || "The server refused the subscription.");
        } else {
          retry(Boolean(error) && error.code === SERVICE_RESTART);
        }
      },
      complete() {
        // The server ended the stream without an error: follow on from the last cursor.
        if (settle()) retry(true);
      },
    });
    if (transport.connected) status("live");
  }

  status("connecting");
  start();
  return {
    get cursor() {
      return payload.variables.after;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      window.removeEventListener("online", online);
      if (unsubscribe) unsubscribe();
    },
  };
}
