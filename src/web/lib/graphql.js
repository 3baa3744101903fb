// The one way the app and the wall display talk to the server: POST /graphql for
// queries and mutations, and a graphql-transport-ws websocket at /graphql for
// subscriptions (the vendored graphql-ws client). No other module may call fetch,
// open a websocket or name a server URL (tests/unit/test_web_operations.py checks).
//
// Every operation is one of the server's trusted documents (documents.js, written by
// scripts/export-documents), and is sent by its hash as Apollo's automatic persisted
// queries do: the hash alone first, the text with it only when the server answers
// PERSISTED_QUERY_NOT_FOUND. Subscriptions send the text with the hash: graphql-ws needs
// a text, and sends it once per subscription.
import { createClient } from "../vendor/graphql-ws/client.js";
import { DOCUMENT_IDS } from "./documents.js";

export const ENDPOINT = "/graphql";
// The spreadsheets' endpoints (GET, the same bearer token).
export const EXPORTS = "/export/";
// Proof versions' files and previews (GET, the same bearer token).
export const PROOFS = "/proofs/";
// Job tickets as one PDF, a ticket a page (GET, the same bearer token).
export const TICKETS = "/tickets.pdf";

function exportUrl(file, params) {
  return EXPORTS + encodeURIComponent(file) + "?" + new URLSearchParams(params);
}

// Tags every GraphQL operation in src/web so that a test can find and validate it
// against schema.graphql. Operations are plain text: no ${...} inside.
export function gql(strings, ...values) {
  if (values.length) throw new Error("GraphQL operations take variables, not ${...}");
  return strings.join("");
}

export function operationName(query) {
  const match = /^\s*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(query);
  return match ? match[1] : null;
}

// The `extensions` naming a document by its hash, or null for one the server does not know.
function persisted(query) {
  const sha256Hash = DOCUMENT_IDS[operationName(query)];
  return sha256Hash ? { persistedQuery: { version: 1, sha256Hash } } : null;
}

function notFound(body) {
  const errors = body.errors || [];
  return errors.some((e) => e.extensions && e.extensions.code === "PERSISTED_QUERY_NOT_FOUND");
}

// A response with top-level errors. `code` is the first error's extensions.code.
export class RequestError extends Error {
  constructor(errors) {
    super(errors.map((e) => e.message).join(" "));
    this.errors = errors;
    this.code = (errors[0] && errors[0].extensions && errors[0].extensions.code) || null;
  }
}

// The server could not be reached, or answered with something that is not GraphQL.
export class NetworkError extends Error {}

// Closing codes the server uses for a token that no longer works.
const EXPIRED = 4401;
const REFUSED = 4403;

export function isAuthClose(event) {
  return Boolean(event) && (event.code === EXPIRED || event.code === REFUSED);
}

function socketUrl() {
  const url = new URL(ENDPOINT, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.search = "";
  url.hash = "";
  return url.toString();
}

// `token()` is read on every request; `onAuthFailure(message)` runs when the server
// says the token no longer works (UNAUTHENTICATED, or a websocket closed 4401/4403);
// `onForbidden()` when a request is refused FORBIDDEN (what the person may do changed?).
export function createTransport({ token, onAuthFailure = () => {}, onForbidden = () => {} }) {
  let client = null;
  let clientToken = null;
  let connected = false;
  const connectedListeners = new Set();
  const stats = { connects: 0 };
  // The device lost its network: the socket is dead even if it has not noticed yet, and
  // live.js resubscribes when the network is back.
  window.addEventListener("offline", () => {
    if (client !== null) client.terminate();
  });

  async function post(payload) {
    const headers = { "content-type": "application/json", accept: "application/json" };
    const bearer = token();
    if (bearer) headers.authorization = "Bearer " + bearer;
    let response;
    try {
      response = await fetch(ENDPOINT, { method: "POST", headers, body: JSON.stringify(payload) });
    } catch (error) {
      throw new NetworkError("The server could not be reached. Check the connection and try again.");
    }
    try {
      return await response.json();
    } catch (error) {
      throw new NetworkError(`The server answered ${response.status} without a GraphQL response.`);
    }
  }

  async function request(query, variables = {}) {
    const payload = { variables, operationName: operationName(query) };
    const extensions = persisted(query);
    let body = extensions ? await post({ ...payload, extensions }) : null;
    if (body === null || notFound(body)) body = await post({ ...payload, query, extensions });
    if (body.errors && body.errors.length) {
      const error = new RequestError(body.errors);
      if (error.code === "UNAUTHENTICATED") onAuthFailure(error.message);
      else if (body.errors.some((e) => e.extensions && e.extensions.code === "FORBIDDEN")) onForbidden();
      throw error;
    }
    return body.data;
  }

  // dispose() waits for a socket still connecting, and rejects with its CloseEvent when
  // the server closes it first (a revoked token, at sign-out): nothing is left to handle.
  function disposeQuietly(old) {
    old.dispose().catch(() => {});
  }

  function socket() {
    const bearer = token();
    if (client !== null && clientToken === bearer) return client;
    if (client !== null) disposeQuietly(client);
    clientToken = bearer;
    connected = false;
    client = createClient({
      url: socketUrl(),
      lazy: true,
      // live.js resubscribes itself, from the last cursor it saw.
      retryAttempts: 0,
      connectionParams: () => ({ authorization: "Bearer " + (bearer || "") }),
      on: {
        connected: () => {
          connected = true;
          stats.connects += 1;
          connectedListeners.forEach((listener) => listener());
        },
        closed: (event) => {
          connected = false;
          if (isAuthClose(event)) {
            onAuthFailure(
              event.code === EXPIRED
                ? "Your session has expired."
                : "Your session was ended (signed out or revoked).",
            );
          }
        },
      },
    });
    return client;
  }

  // A file the server streams, with the same token: its bytes (a File, when the server
  // names it), or the server's refusal.
  async function fetchFile(url) {
    const headers = {};
    const bearer = token();
    if (bearer) headers.authorization = "Bearer " + bearer;
    let response;
    try {
      response = await fetch(url, { headers });
    } catch (error) {
      throw new NetworkError("The server could not be reached. Check the connection and try again.");
    }
    if (response.ok) {
      const blob = await response.blob();
      const named = /filename="([^"]+)/.exec(response.headers.get("content-disposition") || "");
      return named ? new File([blob], named[1], { type: blob.type }) : blob;
    }
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      throw new NetworkError(`The server answered ${response.status} without a file.`);
    }
    if (response.status === 401) onAuthFailure(body.errors[0].message);
    throw new RequestError(body.errors);
  }

  // A spreadsheet (`file`, e.g. "ledger.csv").
  function download(file, params) {
    return fetchFile(exportUrl(file, params));
  }

  // The job tickets of the work orders `ids`, in one PDF.
  function tickets(ids) {
    return fetchFile(TICKETS + "?" + new URLSearchParams({ ids: ids.join(",") }));
  }

  // A proof version's file or preview (Proof.downloadUrl, previewUrl), read from this
  // page's own origin: the server names it under its public address, which a proxy may
  // put elsewhere.
  function proofFile(url) {
    const { pathname } = new URL(url, window.location.href);
    if (!pathname.startsWith(PROOFS)) return Promise.reject(new NetworkError(`Not a proof's address: ${url}`));
    return fetchFile(pathname);
  }

  // A mutation carrying one file, as a GraphQL multipart request (the file's part mapped
  // to the variable at `path`, e.g. "input.file"). Sent as text: a form's parts cannot
  // name a persisted document.
  async function upload(query, variables, path, file) {
    const form = new FormData();
    form.append("operations", JSON.stringify({ query, variables, operationName: operationName(query) }));
    form.append("map", JSON.stringify({ 0: ["variables." + path] }));
    form.append("0", file, file.name);
    const headers = { accept: "application/json" };
    const bearer = token();
    if (bearer) headers.authorization = "Bearer " + bearer;
    let response;
    try {
      response = await fetch(ENDPOINT, { method: "POST", headers, body: form });
    } catch (error) {
      throw new NetworkError("The server could not be reached. Check the connection and try again.");
    }
    let body;
    try {
      body = await response.json();
    } catch (error) {
      throw new NetworkError(`The server answered ${response.status} without a GraphQL response.`);
    }
    if (body.errors && body.errors.length) {
      const error = new RequestError(body.errors);
      if (error.code === "UNAUTHENTICATED") onAuthFailure(error.message);
      throw error;
    }
    return body.data;
  }

  return {
    request,
    download,
    tickets,
    proofFile,
    upload,
    stats,
    // graphql-ws's sink protocol: {next, error, complete}; returns an unsubscribe function.
    subscribe(payload, sink) {
      return socket().subscribe({ ...payload, extensions: persisted(payload.query) }, sink);
    },
    get connected() {
      return connected;
    },
    onConnected(listener) {
      connectedListeners.add(listener);
      return () => connectedListeners.delete(listener);
    },
    // A subscription was refused because the token no longer works.
    authFailed(message) {
      onAuthFailure(message);
    },
    // Drops the websocket as a network failure would (tests use it through window.__pressroom).
    drop() {
      if (client !== null) client.terminate();
    },
    close() {
      if (client !== null) disposeQuietly(client);
      client = null;
      clientToken = null;
      connected = false;
    },
  };
}
