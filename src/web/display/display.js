// The wall display: one department's queue, live, for a screen on the shop floor.
// /display/{departmentCode}?token=<display token>[&clock=12]
// A snapshot, then queueEvents from its cursor; after any drop it resumes from the last
// cursor, so it never misses a move. A cursor the server no longer keeps events after
// (CURSOR_EXPIRED: the display was away longer than the retention) means a new snapshot,
// then on from its cursor. A token the server refuses, or a department that does not
// exist, is said plainly on screen instead of retrying forever.
import { RequestError, createTransport, gql } from "../lib/graphql.js";
import { FAILURES, follow } from "../lib/live.js";
import { addressLines, dueText, duration, wallClock } from "../lib/format.js";
import { lanes } from "../lib/queue.js";

export const WALL_QUEUE = gql`
  query WallQueue($department: String!, $after: String) {
    queue(department: $department, first: 100, after: $after) {
      eventCursor
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id status availableAt waitingSince startedAt inQueue queueLane queueRank dueAt priority
          department { code name }
          pickedUpBy { name }
          workOrder { orderNumber jobLine status dueAt isLate completedAt customer { name } }
          delivery { address { lines postcode city country given } needs }
        }
      }
    }
  }
`;

export const WALL_QUEUE_EVENTS = gql`
  subscription WallQueueEvents($department: String!, $after: String) {
    queueEvents(department: $department, after: $after) {
      cursor
      kind
      task {
        id status availableAt waitingSince startedAt inQueue queueLane queueRank dueAt priority
        department { code name }
        pickedUpBy { name }
        workOrder { orderNumber jobLine status dueAt isLate completedAt customer { name } }
          delivery { address { lines postcode city country given } needs }
      }
    }
  }
`;

// The department's tasks waiting for the customer's approval of a proof: not in the
// queue, so not all of their changes are queue events. Read again after a gate event and
// once a minute.
export const WALL_AWAITING = gql`
  query WallAwaiting($department: String!) {
    awaitingProof(department: $department) {
      id workOrder { orderNumber customer { name } }
    }
  }
`;

const params = new URLSearchParams(window.location.search);
const department = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop() || "");
const token = takeToken();
const twelveHour = params.get("clock") === "12";
const SNAPSHOT_RETRY_MS = 3000;
const AWAITING_EVERY_MS = 60000;
// A task's gate opening or closing may start or end its wait for the customer.
const GATE_EVENTS = new Set(["TASK_GATE_OPENED", "TASK_GATE_CLOSED"]);

// The token leaves the address bar (and with it the browser's history and what a glance
// at the screen shows) as soon as it is read; this tab keeps it for reloads.
function takeToken() {
  const key = `pressroom.display.${window.location.pathname}`;
  const given = params.get("token");
  if (given) {
    window.sessionStorage.setItem(key, given);
    params.delete("token");
    const rest = params.toString();
    window.history.replaceState(null, "", window.location.pathname + (rest ? `?${rest}` : ""));
  }
  return given || window.sessionStorage.getItem(key) || "";
}

const tasks = new Map();
let departmentName = null;
let live = null;
let refused = false;
const state = { status: "connecting", received: 0, connects: 0, snapshots: 0 };

const transport = createTransport({ token: () => token });
window.__pressroom = state;
state.drop = () => transport.drop();
Object.defineProperty(state, "connects", { get: () => transport.stats.connects });

const $ = (id) => document.getElementById(id);

// When the wall was last known current: its last snapshot, or the moment it stopped
// being live. Offline (the device says so), it keeps what it shows and says since when.
let updated = null;
let current = false;
let statusText = "Connecting…";

function setStatus(name, text) {
  if (current && name !== "live") updated = Date.now();
  current = name === "live";
  state.status = name;
  statusText = text;
  showStatus();
}

function showStatus() {
  const offline = !navigator.onLine && !refused;
  $("status").className = "status " + (offline ? "offline" : state.status);
  $("status").textContent = offline
    ? "Offline" + (updated === null ? "" : " - last updated " + clockText(updated))
    : statusText;
}

window.addEventListener("offline", () => {
  if (current) updated = Date.now();
  showStatus();
});
window.addEventListener("online", showStatus);

function title() {
  if (refused) return;
  const name = departmentName || department.charAt(0).toUpperCase() + department.slice(1);
  $("title").textContent = name + " queue";
  document.title = name + " queue · Pressroom";
}

// The screen says what is wrong, in words a passer-by can act on; it stops retrying.
function refuse(message) {
  refused = true;
  if (live) live.stop();
  setStatus("failed", "Not live");
  $("problem").textContent = message;
  $("problem").hidden = false;
  // Nothing below the message is true any more: no "Waiting 0 / In progress 0".
  document.querySelector("main").hidden = true;
}

// What a refused snapshot means for the screen (null: worth trying again).
function refusal(error) {
  if (!(error instanceof RequestError)) return null;
  return FAILURES[error.code] || null;
}

// The one thing the display's address names is its department: NOT_FOUND is that.
function explain(kind, message) {
  if (kind === "not-found") {
    $("title").textContent = "Pressroom wall display";
    return `There is no department “${department}”. Check the display's address.`;
  }
  if (kind === "forbidden") {
    return `This display's token may not show the “${department}” queue. Ask an admin for a display link for it.`;
  }
  if (kind === "auth") {
    return "This display's token was refused: it is missing, revoked or expired. Ask an admin for a new display link.";
  }
  return message;
}

// Whether a task is on the wall is the server's to say (inQueue), for a snapshot's task
// and an event's alike.
function apply(task) {
  if (task.department && task.department.name) departmentName = task.department.name;
  if (task.inQueue) tasks.set(task.id, task);
  else tasks.delete(task.id);
}

function item(task, working) {
  const li = document.createElement("li");
  const since = working ? task.startedAt : task.waitingSince;
  li.className = "task" + (Date.now() - Date.parse(since) > 3600000 ? " old" : "");
  li.dataset.taskId = task.id;
  const late = task.workOrder.isLate;
  if (task.priority === "RUSH") li.className += " rush";
  if (late) li.className += " late";
  const parts = [
    ["order", task.workOrder.orderNumber],
    // Which clock it is: time in the queue, or time since someone started it.
    ["since", (working ? "working " : "waiting ") + duration(since)],
    ["customer", task.workOrder.customer.name],
    ["worker", working && task.pickedUpBy ? task.pickedUpBy.name : ""],
    ["flags", [task.priority === "RUSH" ? "RUSH" : "", late ? "LATE" : ""].filter(Boolean).join(" · ")],
    ["due", dueText(task.workOrder)],
    ["job", task.workOrder.jobLine || ""],
    // A delivery task: where to, and what is needed there.
    ["address", task.delivery ? addressLines(task.delivery.address).join(", ") : ""],
    ["needs", task.delivery ? task.delivery.needs.join(" · ") : ""],
  ];
  parts.forEach(([name, text]) => {
    if (!text && name !== "since") return;
    const span = document.createElement("span");
    span.className = name;
    span.textContent = text;
    li.appendChild(span);
  });
  return li;
}

// Shows what fits; the rest is counted in "+ N more" (the count line takes a row too).
function fit(list, more, word) {
  const items = Array.from(list.children);
  items.forEach((li) => { li.hidden = false; });
  more.hidden = true;
  const bottom = () => list.getBoundingClientRect().bottom;
  const overflows = (li) => li.getBoundingClientRect().bottom > bottom() + 0.5;
  let shown = items.length;
  while (shown > 0 && overflows(items[shown - 1])) {
    shown -= 1;
    items[shown].hidden = true;
  }
  if (shown < items.length) {
    more.hidden = false;
    // Hiding items made room; give one more up while the count line itself would not fit.
    const fitsWithCount = () => {
      more.textContent = `+ ${items.length - shown} more ${word}`;
      return shown === 0 || !overflows(items[shown - 1]);
    };
    while (!fitsWithCount()) {
      shown -= 1;
      items[shown].hidden = true;
    }
  }
}

function render() {
  const { waiting, inProgress: working } = lanes(Array.from(tasks.values()));
  $("waiting").replaceChildren(...waiting.map((t) => item(t, false)));
  $("working").replaceChildren(...working.map((t) => item(t, true)));
  $("waiting-count").textContent = waiting.length;
  $("working-count").textContent = working.length;
  fit($("waiting"), $("waiting-more"), "waiting");
  fit($("working"), $("working-more"), "in progress");
  title();
  clock();
}

let awaiting = [];
let awaitingRead = null;

// Reads the waiting-for-approval strip again; one read at a time (a read asked for
// meanwhile is the one running). A failure keeps what was shown: the queue says if the
// display is cut off.
function readAwaiting() {
  if (awaitingRead || refused) return;
  awaitingRead = transport.request(WALL_AWAITING, { department }).then(
    (data) => {
      awaitingRead = null;
      awaiting = data.awaitingProof;
      state.awaitingReads = (state.awaitingReads || 0) + 1;
      renderAwaiting();
    },
    () => {
      awaitingRead = null;
    },
  );
}

function renderAwaiting() {
  $("awaiting").hidden = awaiting.length === 0;
  $("awaiting-count").textContent = awaiting.length;
  $("awaiting-list").replaceChildren(...awaiting.map((task) => {
    const li = document.createElement("li");
    li.dataset.taskId = task.id;
    li.textContent = task.workOrder.orderNumber;
    const customer = document.createElement("span");
    customer.className = "customer";
    customer.textContent = task.workOrder.customer.name;
    li.appendChild(customer);
    return li;
  }));
  // What does not fit whole (below the strip's line, or wider than it) is counted; the
  // count takes room too, so look again once it shows.
  const list = $("awaiting-list");
  const more = $("awaiting-more");
  const items = Array.from(list.children);
  const cut = (li) => {
    const box = list.getBoundingClientRect();
    const own = li.getBoundingClientRect();
    return own.bottom > box.bottom + 0.5 || own.right > box.right + 0.5;
  };
  more.hidden = true;
  let shown = items.length;
  while (shown > 0 && items.slice(0, shown).some(cut)) {
    shown -= 1;
    items[shown].hidden = true;
    more.hidden = false;
    more.textContent = `+ ${items.length - shown} more`;
  }
  // The strip takes its room from the queue's lists.
  render();
}

function pad(n) {
  return String(n).padStart(2, "0");
}

// The shop's time (PRESSROOM_TIME_ZONE), whatever zone the display's computer is set to.
function clockText(ms) {
  const time = wallClock(ms);
  if (twelveHour) {
    const hours = time.hour % 12 || 12;
    return `${hours}:${pad(time.minute)} ${time.hour < 12 ? "AM" : "PM"}`;
  }
  return `${pad(time.hour)}:${pad(time.minute)}`;
}

function clock() {
  $("clock").textContent = clockText(Date.now());
}

// Every page of the queue, then what the wall shows is replaced by it (a snapshot that
// fails halfway leaves the wall as it was); its cursor.
async function snapshot() {
  const nodes = [];
  let cursor = null;
  let after = null;
  for (;;) {
    const { queue } = await transport.request(WALL_QUEUE, { department, after });
    if (cursor === null) cursor = queue.eventCursor;
    queue.edges.forEach((edge) => nodes.push(edge.node));
    if (!queue.pageInfo.hasNextPage) break;
    after = queue.pageInfo.endCursor;
  }
  tasks.clear();
  nodes.forEach(apply);
  updated = Date.now();
  return cursor;
}

async function renewed() {
  try {
    const cursor = await snapshot();
    state.snapshots += 1;
    render();
    readAwaiting();
    return cursor;
  } catch (error) {
    const kind = refusal(error);
    if (kind) refuse(explain(kind, error.message));
    throw error;
  }
}

async function start() {
  if (!token) {
    refuse("This display has no token. Open the link an admin made for it (…?token=…).");
    return;
  }
  let cursor;
  try {
    cursor = await snapshot();
    state.snapshots += 1;
  } catch (error) {
    const kind = refusal(error);
    if (kind) {
      refuse(explain(kind, error.message));
      return;
    }
    setStatus("reconnecting", "Reconnecting…");
    setTimeout(start, SNAPSHOT_RETRY_MS);
    return;
  }
  render();
  readAwaiting();
  live = follow(transport, {
    query: WALL_QUEUE_EVENTS,
    variables: { department, after: cursor },
    field: "queueEvents",
    onEvent: (event) => {
      apply(event.task);
      state.received += 1;
      render();
      if (GATE_EVENTS.has(event.kind)) readAwaiting();
    },
    onStatus: (name) => {
      if (refused) return;
      if (name === "live") setStatus("live", "Live");
      else if (name === "reconnecting") setStatus("reconnecting", "Reconnecting…");
      else if (name === "connecting") setStatus("connecting", "Connecting…");
    },
    onFailure: ({ kind, message }) => refuse(explain(kind, message)),
    onExpired: renewed,
  });
}

title();
clock();
setInterval(render, 30000);
setInterval(readAwaiting, AWAITING_EVERY_MS);
window.addEventListener("resize", renderAwaiting);
start();
