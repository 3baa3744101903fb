// Small shared pieces of every screen: ids, the page's title, a clock that ticks, the
// modal dialog, the live connection's state, badges, times and due dates. Reading and
// sending is data.js, forms are forms.js, errors in words are messages.js.
import { Fragment, html, useEffect, useRef, useState } from "./html.js";
import { dueText, when } from "./format.js";

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

// An order's due date, and what it says now (dueText: "due in 3 h", "done on time").
export function DueDate({ order }) {
  if (!order.dueAt) return null;
  const words = dueText(order);
  return html`<${Time} iso=${order.dueAt} />${words
    ? html` <span class=${"due" + (order.isLate ? " late" : "")}>(${words})</span>`
    : null}`;
}

export { Fragment };
