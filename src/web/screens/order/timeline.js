// An order's history as the page's timeline reads it: its own moves and its tasks', in
// words, oldest first. A move Pressroom made (bySystem) reads "by Pressroom".
import { money } from "../../lib/ui.js";

const SYSTEM = "Pressroom";

// A task's moves in words; null: the order's own entry tells that action (removing a
// department is the order's DEPARTMENT_REMOVED), so it reads as one entry, not two.
const TASK_MOVES = {
  START: "started",
  FINISH: "finished",
  RELEASE: "released (back to the queue)",
  OVERRIDE_COMPLETE: "completed by an admin",
  REOPEN: "reopened",
  REMOVE: null,
};

// The server writes NONE for "no quote" on either side of a change.
const NO_QUOTE = "NONE";

// The server writes quotes as "12500.00 EUR"; shown grouped like every other amount.
function quoteText(text) {
  const found = /^(\S+) ([A-Z]{3})$/.exec(text);
  return found ? money({ amount: found[1], currency: found[2] }) : text;
}

function quoteMove(rawFrom, rawTo) {
  const from = quoteText(rawFrom);
  const to = quoteText(rawTo);
  if (from === NO_QUOTE && to === NO_QUOTE) return "Quote unchanged (none)";
  if (from === NO_QUOTE) return `Quote set to ${to}`;
  if (to === NO_QUOTE) return `Quote removed (was ${from})`;
  return `Quote changed from ${from} to ${to}`;
}

// A task's gate (the delivery gate too): its task entering or leaving its queue.
function gateMove(department, opened) {
  const name = department ? department.name : "Delivery";
  return opened ? `${name} can start` : `${name} waits again`;
}

function orderMove(entry) {
  switch (entry.action) {
    case "COMPLETE": return "Work order completed";
    case "REACTIVATE": return "Work order active again";
    case "CANCEL": return "Work order cancelled";
    case "OPEN_GATE": return gateMove(entry.department, true);
    case "CLOSE_GATE": return gateMove(entry.department, false);
    case "QUOTE_CHANGED": return quoteMove(entry.fromState, entry.toState);
    case "SCHEDULE_CHANGED": return `Rescheduled from ${entry.fromState} to ${entry.toState}`;
    case "HELD": return "Put on hold";
    case "RESUMED": return "Resumed";
    case "DETAILS_CHANGED": return "Details changed";
    case "DEPARTMENT_ADDED": return `${entry.department.name} added`;
    case "DEPARTMENT_REMOVED": return `${entry.department.name} removed`;
    case "PROOF_APPROVED": return "Proof approved";
    case "PROOF_CHANGES_REQUESTED": return "Proof changes requested";
    default: return `${entry.action}: ${entry.fromState} → ${entry.toState}`;
  }
}

// A part a details change changed, one line each: "Quantity: 500 → 1000".
function changeLine({ label, before, after }) {
  if (before === null) return `${label}: ${after} (added)`;
  if (after === null) return `${label}: removed (was ${before})`;
  return `${label}: ${before} → ${after}`;
}

// One person's entries at one instant were written by one transaction: one action
// (cancelling releases the started tasks; changes asked for on a proof reopen its makers'
// tasks). They read as one entry: the order's first, the others as its lines.
function onePerAction(sorted) {
  const actions = new Map();
  sorted.filter((e) => e.actorId).forEach((e) => {
    const key = `${e.at} ${e.actorId}`;
    actions.set(key, [...(actions.get(key) || []), e]);
  });
  const folded = new Set();
  actions.forEach((group) => {
    const head = group.find((e) => e.rank === 2) || group[0];
    const rest = group.filter((e) => e !== head);
    head.lines = [...head.lines, ...rest.map((e) => e.what)];
    rest.forEach((e) => folded.add(e));
  });
  return sorted.filter((e) => !folded.has(e));
}

// Status and gate moves of the order, every move of its tasks and its proof versions'
// uploads, oldest first.
export function timeline(order) {
  // At the same instant a task's move comes first: it is what opened the gate or
  // completed the order.
  const entries = [{ at: order.createdAt, rank: 0, what: "Work order created", who: order.createdBy && order.createdBy.name, lines: [] }];
  order.tasks.forEach((task) => task.history.filter((h) => TASK_MOVES[h.action] !== null).forEach((h) => entries.push({
    at: h.occurredAt,
    rank: 1,
    what: `${task.department.name}: ${TASK_MOVES[h.action] || h.action.toLowerCase()}`,
    who: h.actor.name,
    actorId: h.actor.id,
    reason: h.reason,
    lines: [],
  })));
  order.history.forEach((h) => entries.push({
    at: h.occurredAt,
    rank: 2,
    what: orderMove(h),
    who: h.bySystem ? SYSTEM : h.actor && h.actor.name,
    actorId: h.actor && h.actor.id,
    reason: h.reason,
    lines: h.changes.map(changeLine),
  }));
  // A proof version's upload is its own record, not a move of the order.
  (order.proofs || []).forEach((p) => entries.push({
    at: p.uploadedAt, rank: 2, what: `Proof version ${p.version} uploaded`, who: p.uploadedBy && p.uploadedBy.name, lines: [],
  }));
  return onePerAction(entries
    .map((entry, index) => ({ ...entry, index }))
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.rank - b.rank || a.index - b.index));
}
