// Reading and sending: a request, a query kept current (useQuery), a list read a page at a
// time (usePages, ShowMore), a form's mutation (useSubmit), one made once (useOnce), a
// mutation's answer as problems, and a list read again on demand or when the person comes
// back to the tab. No GraphQL here: every operation lives in the screen that shows its
// result.
import { html, useCallback, useEffect, useRef, useState } from "./html.js";
import { transport } from "./session.js";
import { ErrorMessage, messageOf } from "./messages.js";

export function request(query, variables) {
  return transport.request(query, variables);
}

// A form's mutation: busy while it runs; the server's userErrors, or the request's
// failure, kept for the form to show; `done(payload)` runs when it went through.
export function useSubmit() {
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [busy, setBusy] = useState(false);
  async function submit(mutation, field, variables, done) {
    setBusy(true);
    setErrors([]);
    setFailure(null);
    try {
      const payload = (await request(mutation, variables))[field];
      if (payload.userErrors.length) setErrors(payload.userErrors);
      else await done(payload);
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }
  return { errors, setErrors, failure, busy, submit };
}

// A form whose mutation makes something (an order, a customer, a person, a ledger entry):
// every send carries one idempotency key, so a double click or a retry after a lost
// answer makes it once (the server answers the repeat with `changed: false`). After a
// failure the server may have made it already, so the form is `held`: the next send
// repeats exactly what was sent (same key, same input) and the form keeps its fields
// still until that is answered (an edited retry would meet DUPLICATE). A refusal
// (userErrors) keeps the key, since nothing was made; a success takes a new one for the
// next submission. `done(payload)` runs once per key, whichever answer comes first.
export function useOnce() {
  const [key, setKey] = useState(uuid);
  const [sent, setSent] = useState(null);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [pending, setPending] = useState(0);
  const answered = useRef(null);
  async function send(mutation, field, input, done) {
    const variables = { input: sent || { ...input, idempotencyKey: key } };
    setPending((n) => n + 1);
    setErrors([]);
    setFailure(null);
    try {
      const payload = (await request(mutation, variables))[field];
      setSent(null);
      if (payload.userErrors.length) {
        setErrors(payload.userErrors);
      } else if (answered.current !== variables.input.idempotencyKey) {
        answered.current = variables.input.idempotencyKey;
        setKey(uuid());
        await done(payload);
      }
    } catch (error) {
      setSent(variables.input);
      setFailure(error);
    }
    setPending((n) => n - 1);
  }
  return { errors, setErrors, failure, busy: pending > 0, held: Boolean(sent), send };
}

// A mutation's answer as problems: its userErrors, or the request's failure as one problem
// of no field; null when it went through.
export async function problems(mutation, field, input) {
  try {
    const errors = (await request(mutation, { input }))[field].userErrors;
    return errors.length ? errors : null;
  } catch (error) {
    return [{ field: null, message: messageOf(error) }];
  }
}

// Runs `query` whenever `variables` change (compared as JSON). `skip` waits. `read`, when
// given, reads in its place (given the variables), for answers of more than one request.
export function useQuery(query, variables = {}, { skip = false, read = null } = {}) {
  const key = JSON.stringify(variables);
  const [state, setState] = useState({ data: null, error: null, loading: !skip });
  const sequence = useRef(0);
  const refetch = useCallback(() => {
    const mine = ++sequence.current;
    setState((s) => ({ ...s, loading: true }));
    return (read ? read(JSON.parse(key)) : request(query, JSON.parse(key))).then(
      (data) => {
        if (mine === sequence.current) setState({ data, error: null, loading: false });
        return data;
      },
      (error) => {
        if (mine === sequence.current) setState((s) => ({ data: s.data, error, loading: false }));
        return null;
      },
    );
  }, [query, key, read]);
  useEffect(() => {
    if (!skip) refetch();
  }, [refetch, skip]);
  // `data` may be a function of the data shown, as in useState.
  const setData = (data) => setState((s) => ({ ...s, data: typeof data === "function" ? data(s.data) : data }));
  return { ...state, refetch, setData };
}

// A list read a page at a time: `query` with `variables` and `after` (a cursor), whose
// page (a connection) is `connectionOf(data)`; "Show more" adds the next. `refresh`
// reads again as many pages as are shown, all before any is shown: a person who has
// read three pages down stays there, and no page is shown beside one read at another
// time. New variables start again from the first page. `data` is the first page's
// answer, with whatever else the query asks beside the list.
export function usePages(query, variables, connectionOf) {
  const key = JSON.stringify(variables);
  const pageOf = useRef(connectionOf);
  pageOf.current = connectionOf;
  // How many pages past the first are shown, and for which variables.
  const shown = useRef({ key: null, later: 0 });
  const read = useCallback(
    async (vars) => {
      const later = shown.current.key === key ? shown.current.later : 0;
      const data = await request(query, vars);
      const pages = [pageOf.current(data)];
      while (pages.length <= later && pages[pages.length - 1].pageInfo.hasNextPage) {
        const after = pages[pages.length - 1].pageInfo.endCursor;
        pages.push(pageOf.current(await request(query, { ...vars, after })));
      }
      return { key, data, pages };
    },
    [query, key],
  );
  const list = useQuery(query, { ...variables, after: null }, { read });
  const [more, setMore] = useState({ busy: false, error: null });
  const pages = list.data ? list.data.pages : [];
  shown.current = { key: list.data ? list.data.key : null, later: Math.max(0, pages.length - 1) };
  const last = pages[pages.length - 1];

  async function showMore() {
    const at = list.data;
    setMore({ busy: true, error: null });
    try {
      const data = await request(query, { ...variables, after: last.pageInfo.endCursor });
      // Dropped if the list was read again meanwhile (a refresh, other variables).
      list.setData((now) => (now === at ? { ...now, pages: [...now.pages, pageOf.current(data)] } : now));
      setMore({ busy: false, error: null });
    } catch (error) {
      setMore({ busy: false, error });
    }
  }

  return {
    data: list.data ? list.data.data : null,
    error: list.error,
    loading: list.loading,
    items: pages.flatMap((page) => page.edges.map((e) => e.node)),
    hasMore: Boolean(last && last.pageInfo.hasNextPage),
    more,
    showMore,
    refresh() {
      setMore({ busy: false, error: null });
      return list.refetch();
    },
    // Replaces nodes in every page shown: `change(node)` gives the node to show.
    mapNodes(change) {
      const map = (page) => ({ ...page, edges: page.edges.map((e) => ({ ...e, node: change(e.node) })) });
      list.setData((now) => (now ? { ...now, pages: now.pages.map(map) } : now));
    },
  };
}

// A paged list's (usePages) "Show more": its error, if the last try failed, and the
// button while there is more.
export function ShowMore({ list, label = "Show more" }) {
  return html`<${ErrorMessage} error=${list.more.error} />
    ${list.hasMore
      ? html`<button type="button" onClick=${list.showMore} aria-busy=${list.more.busy ? "true" : undefined}>${label}</button>`
      : null}`;
}

// Runs `refresh` whenever this tab becomes visible again (the person comes back to it),
// so a list read earlier is not left stale. The latest `refresh` is the one that runs.
export function useRefreshOnVisible(refresh) {
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    const onChange = () => {
      if (document.visibilityState === "visible") latest.current();
    };
    document.addEventListener("visibilitychange", onChange);
    return () => document.removeEventListener("visibilitychange", onChange);
  }, []);
}

// Reads a list again on demand; busy while the read runs.
export function RefreshButton({ onClick, busy }) {
  return html`<button type="button" onClick=${onClick} aria-busy=${busy ? "true" : undefined}>
    <span aria-hidden="true">↻ </span>Refresh</button>`;
}

// A v4 UUID. crypto.randomUUID needs a secure context; getRandomValues does not.
export function uuid() {
  const bytes = window.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
