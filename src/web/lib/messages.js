// What a person reads of a request: the server's refusals and failures in words
// (messageOf, ErrorMessage, RetryMessage), and that something is loading.
import { html } from "./html.js";
import { NetworkError, RequestError } from "./graphql.js";

// What the server's refusals say to a person: the one place that maps them, so that no
// GraphQL validation text reaches a screen (a form checks its input before sending).
const UNREADABLE = "The server could not read this request. Reload the page and try again; if it happens again, tell an admin.";
const REFUSALS = {
  BAD_REQUEST: () => UNREADABLE,
  GRAPHQL_VALIDATION_FAILED: () => UNREADABLE,
  GRAPHQL_PARSE_FAILED: () => UNREADABLE,
  INTERNAL_SERVER_ERROR: () => "Something went wrong on the server. Try again in a moment.",
  FORBIDDEN: (message) => `Not allowed: ${message}`,
};

export function messageOf(error) {
  if (!error) return "";
  if (error instanceof RequestError) {
    const say = REFUSALS[error.code];
    return say ? say(error.message) : error.message;
  }
  if (error instanceof NetworkError) return error.message;
  return error.message || String(error);
}

export function ErrorMessage({ error, children }) {
  const text = children || messageOf(error);
  if (!text) return null;
  // One span: the box lays its children apart (a message, a button), never the mark and its words.
  return html`<p class="message error" role="alert"><span><span aria-hidden="true">⚠ </span>${text}</span></p>`;
}

// A `held` form's failure (useOnce): what went wrong, and that the same button sends the
// same again, made once.
export function RetryMessage({ failure, button, what, verb = "made" }) {
  if (!failure) return null;
  return html`<${ErrorMessage}>${messageOf(failure)} Nothing is lost: press “${button}” again
    and ${what}, as sent, is ${verb} once (it may already be).<//>`;
}

export function Loading({ what = "Loading" }) {
  return html`<p class="message" role="status">${what}…</p>`;
}
