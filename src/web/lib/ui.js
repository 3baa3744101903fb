// Small shared pieces: data loading, messages, dialogs, formatting. No GraphQL here:
// every operation lives in the screen that shows its result.
import { Fragment, html, useCallback, useEffect, useRef, useState } from "./html.js";
import { transport } from "./session.js";
import { NetworkError, RequestError } from "./graphql.js";
import { dueText, inputInstant, when } from "./format.js";

// The formatters live in format.js (the wall display uses them too).
export {
  TIME_ZONE, addressLines, amountHint, balances, decimal, dueText, duration, inputInstant,
  inputValue, money, overdue, possessive, readAmount, when,
} from "./format.js";

let counter = 0;
export function useId(prefix = "id") {
  const ref = useRef(null);
  if (ref.current === null) {
    counter += 1;
    ref.current = `${prefix}-${counter}`;
  }
  return ref.current;
}

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

export function useTitle(title) {
  useEffect(() => {
    document.title = title ? `${title} · Pressroom` : "Pressroom";
  }, [title]);
}

// Re-renders every `ms` so that "waiting 12 min" keeps counting.
export function useNow(ms = 30000) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

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

// Whether a userError is about one of `fields` ("quote.amount" counts for "quote").
function about(error, fields) {
  return Boolean(error.field) && fields.some((f) => error.field === f || error.field.startsWith(f + "."));
}

// The field errors a mutation returned, by input field.
export function errorsFor(userErrors, ...fields) {
  return (userErrors || [])
    .filter((e) => about(e, fields))
    .map((e) => e.message)
    .join(" ");
}

export function otherErrors(userErrors, known) {
  return (userErrors || [])
    .filter((e) => !about(e, known))
    .map((e) => e.message)
    .join(" ");
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

// Every problem of a form's answer at once, one idiom for every form: each field shows its
// own message (Field, FieldError), and this summary, after the fields and before the
// buttons, is read out as an alert: how many fields to fix, then what belongs to none of
// the form's `fields` (a refusal of the whole, an unknown object).
export function FormErrors({ errors, fields }) {
  const list = errors || [];
  const marked = list.filter((e) => about(e, fields)).length;
  const count = marked === 1 ? "1 problem: fix the field marked above." : `${marked} problems: fix the fields marked above.`;
  const text = [marked ? count : "", otherErrors(list, fields)].filter(Boolean).join(" ");
  return html`<${ErrorMessage}>${text}<//>`;
}

// A field's message, for inputs that are not a Field (a group of checkboxes, a picker): the
// input names it with aria-describedby=${id} and aria-invalid.
export function FieldError({ id, error }) {
  if (!error) return null;
  return html`<p class="field-error" id=${id}><span aria-hidden="true">⚠ </span>${error}</p>`;
}

// A labelled input with its error message tied to it (aria-describedby).
export function Field({ label, error, hint, type = "text", value, onInput, required, ...rest }) {
  const id = useId("field");
  const describedBy = [hint ? id + "-hint" : null, error ? id + "-error" : null]
    .filter(Boolean)
    .join(" ");
  const input =
    type === "textarea"
      ? html`<textarea id=${id} value=${value} onInput=${(e) => onInput(e.currentTarget.value)}
          required=${required} aria-invalid=${error ? "true" : undefined}
          aria-describedby=${describedBy || undefined} ...${rest}></textarea>`
      : html`<input id=${id} type=${type} value=${value}
          onInput=${(e) => onInput(e.currentTarget.value)} required=${required}
          aria-invalid=${error ? "true" : undefined} aria-describedby=${describedBy || undefined}
          ...${rest} />`;
  return html`<div class="field">
    <label for=${id}>${label}${required ? html`<span class="required" aria-hidden="true"> (required)</span>` : null}</label>
    ${input}
    ${hint ? html`<p class="hint" id=${id + "-hint"}>${hint}</p>` : null}
    <${FieldError} id=${id + "-error"} error=${error} />
  </div>`;
}

export function Checkbox({ label, checked, onChange, ...rest }) {
  const id = useId("check");
  return html`<div class="check">
    <input type="checkbox" id=${id} checked=${checked}
      onChange=${(e) => onChange(e.currentTarget.checked)} ...${rest} />
    <label for=${id}>${label}</label>
  </div>`;
}

// A modal <dialog>: focus moves into it, Escape closes it, the page behind is inert.
export function Dialog({ title, onClose, children }) {
  const ref = useRef(null);
  const titleId = useId("dialog");
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog && dialog.open) dialog.close();
    };
  }, []);
  return html`<dialog ref=${ref} aria-labelledby=${titleId}
      onCancel=${(e) => { e.preventDefault(); onClose(); }}>
    <h2 id=${titleId}>${typeof title === "string" ? unbroken(title) : title}</h2>
    ${children}
  </dialog>`;
}

// A heading's hyphenated words (an order number, WO-000001) kept whole: a phone's line
// would otherwise break after the hyphen.
function unbroken(text) {
  return text.split(/(\S+-\S+)/).map((part, i) => (i % 2 ? html`<span class="nowrap">${part}</span>` : part));
}

// Asks for a reason, then runs `onConfirm(reason)`; it resolves to the problems (userErrors,
// or a failure as one problem of no field: `problems(...)`) or null.
export function ReasonDialog({ title, intro, action, onConfirm, onClose, cancelLabel = "Back" }) {
  const [reason, setReason] = useState("");
  const [errors, setErrors] = useState([]);
  const [busy, setBusy] = useState(false);
  async function submit(event) {
    event.preventDefault();
    if (!reason.trim()) {
      setErrors([{ field: "reason", message: "Give a reason: it is kept in the history." }]);
      return;
    }
    setBusy(true);
    setErrors([]);
    const found = await onConfirm(reason.trim());
    setBusy(false);
    if (found) setErrors(found);
    else onClose();
  }
  return html`<${Dialog} title=${title} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      ${intro ? html`<p>${intro}</p>` : null}
      <${Field} label="Reason" type="textarea" value=${reason} required=${true} rows="3"
        onInput=${setReason} error=${errorsFor(errors, "reason")} />
      <${FormErrors} errors=${errors} fields=${["reason"]} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>${action}</button>
        <button type="button" onClick=${onClose}>${cancelLabel}</button>
      </div>
    </form>
  <//>`;
}

// Whether the device has a network at all (navigator.onLine, kept by its events).
export function useOnline() {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    window.addEventListener("online", on);
    window.addEventListener("offline", off);
    return () => {
      window.removeEventListener("online", on);
      window.removeEventListener("offline", off);
    };
  }, []);
  return online;
}

// Live connection state, spoken politely by screen readers. Offline, a live screen keeps
// what it showed and says since when (`updated`, ms).
export function LiveStatus({ status, online = true, updated = null }) {
  if (!online) {
    const iso = updated === null ? null : new Date(updated).toISOString();
    return html`<span class="live-status offline" role="status"><span aria-hidden="true">✕ </span>Offline${iso
      ? html` - last updated <time datetime=${iso}>${when(iso)}</time>`
      : null}</span>`;
  }
  const text = {
    connecting: "Connecting…",
    live: "Live",
    reconnecting: "Reconnecting…",
    failed: "Not live",
  }[status] || status;
  const icon = { live: "●", failed: "✕" }[status] || "↻";
  return html`<span class=${"live-status " + status} role="status">
    <span aria-hidden="true">${icon} </span>${text}</span>`;
}

const TASK_STATUS = {
  PENDING: ["Waiting", "○"],
  STARTED: ["In progress", "◐"],
  COMPLETED: ["Done", "●"],
  REMOVED: ["Removed", "–"],
  // Not a task's status: what an unfinished task of a cancelled order is to a person.
  CANCELLED: ["Cancelled", "✕"],
};
const ORDER_STATUS = {
  ACTIVE: ["Active", "○"],
  COMPLETED: ["Completed", "●"],
  CANCELLED: ["Cancelled", "✕"],
};

// Status as words with a shape, never as colour alone.
// What a work order's time says, in words (never colour alone): Rush, Late, On hold.
export function TimeBadges({ order }) {
  return html`${order.priority === "RUSH" ? html`<span class="badge rush"><span aria-hidden="true">⚡ </span>Rush</span>` : null}
    ${order.isLate ? html`<span class="badge late"><span aria-hidden="true">! </span>Late</span>` : null}
    ${order.hold ? html`<span class="badge held"><span aria-hidden="true">‖ </span>On hold</span>` : null}`;
}

export function Badge({ status, order = false }) {
  const [text, icon] = (order ? ORDER_STATUS : TASK_STATUS)[status] || [status, "·"];
  return html`<span class=${"badge " + status.toLowerCase()}><span aria-hidden="true">${icon} </span>${text}</span>`;
}

export function Time({ iso }) {
  if (!iso) return html`<span>—</span>`;
  return html`<time datetime=${iso}>${when(iso)}</time>`;
}

// Whether a datetime-local input's due date has passed: the forms ask before sending one
// (LateQuestion). The server takes it anyway (an order taken late is late) and says so in
// its answer's warnings; this is only a question, for a date mistyped.
export function duePassed(value, now = Date.now()) {
  return Boolean(value) && Date.parse(inputInstant(value)) <= now;
}

// "This order is already late. Create it anyway?": `action` sends, the other button goes
// back to the due date.
export function LateQuestion({ question, action, onYes, onNo }) {
  return html`<div class="message notice late-question" role="alert">
    <p><strong>This order is already late.</strong> ${question}</p>
    <div class="actions">
      <button type="button" class="primary" onClick=${onYes}>${action}</button>
      <button type="button" onClick=${onNo}>Change the due date</button>
    </div>
  </div>`;
}

// What the server's answer warns of, in its words ("This order is already late: ...").
export function warningsText(payload) {
  return (payload.warnings || []).map((w) => w.message).join(" ");
}

// An order's due date, and what it says now (dueText: "due in 3 h", "done on time").
export function DueDate({ order }) {
  if (!order.dueAt) return null;
  const words = dueText(order);
  return html`<${Time} iso=${order.dueAt} />${words
    ? html` <span class=${"due" + (order.isLate ? " late" : "")}>(${words})</span>`
    : null}`;
}

// A v4 UUID. crypto.randomUUID needs a secure context; getRandomValues does not.
export function uuid() {
  const bytes = window.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export { Fragment };
