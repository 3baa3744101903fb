// My queues: one live column per production or delivery department of the signed-in
// person. Each column takes a snapshot (all pages, one eventCursor), then follows
// queueEvents from that cursor, resuming from the last cursor after any drop (or from a
// new snapshot, when the server no longer keeps the events after it: CURSOR_EXPIRED).
// A filter above the columns shows the tasks the server finds for it (queue's search:
// order number, customer, job), read again when a task it has not seen comes in.
import { gql } from "../lib/graphql.js";
import { FAILURES, follow } from "../lib/live.js";
import { html, useEffect, useReducer, useRef, useState } from "../lib/html.js";
import { lanes } from "../lib/queue.js";
import { Link } from "../lib/router.js";
import { rolesOf, transport } from "../lib/session.js";
import { Field } from "../lib/forms.js";
import { messageOf } from "../lib/messages.js";
import { LiveStatus, addressLines, dueText, duration, overdue, useId, useNow, useOnline, useTitle } from "../lib/ui.js";
import { ScanField } from "./scan.js";

export const QUEUE_SNAPSHOT = gql`
  query QueueSnapshot($department: String!, $after: String) {
    queue(department: $department, first: 100, after: $after) {
      eventCursor
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id status availableAt waitingSince startedAt inQueue queueLane queueRank dueAt priority allowedActions
          pickedUpBy { id name }
          workOrder { id orderNumber jobLine status dueAt isLate completedAt customer { name } }
          proofChanges { version comment }
        proofChanges { version comment }
        delivery { address { lines postcode city country given } needs }
        }
      }
    }
  }
`;

// The ids of a queue's tasks matching a filter, every page of them.
export const QUEUE_MATCHES = gql`
  query QueueMatches($department: String!, $search: String!, $after: String) {
    queue(department: $department, search: $search, first: 100, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges { node { id } }
    }
  }
`;

export const QUEUE_EVENTS = gql`
  subscription QueueEvents($department: String!, $after: String) {
    queueEvents(department: $department, after: $after) {
      cursor
      kind
      task {
        id status availableAt waitingSince startedAt inQueue queueLane queueRank dueAt priority allowedActions
        pickedUpBy { id name }
        workOrder { id orderNumber jobLine status dueAt isLate completedAt customer { name } }
        proofChanges { version comment }
        delivery { address { lines postcode city country given } needs }
      }
    }
  }
`;

// After a refused start: the task as it is now, so the column is current at once.
export const QUEUE_TASK = gql`
  query QueueTask($id: ID!) {
    node(id: $id) {
      ... on DepartmentTask {
        id status availableAt waitingSince startedAt inQueue queueLane queueRank dueAt priority allowedActions
        pickedUpBy { id name }
        workOrder { id orderNumber jobLine status dueAt isLate completedAt customer { name } }
        proofChanges { version comment }
        delivery { address { lines postcode city country given } needs }
      }
    }
  }
`;

export const START_TASK = gql`
  mutation StartTask($input: StartTaskInput!) {
    startTask(input: $input) {
      changed
      task {
        id status availableAt waitingSince startedAt inQueue queueLane queueRank dueAt priority allowedActions
        pickedUpBy { id name }
        workOrder { id orderNumber jobLine status dueAt isLate completedAt customer { name } }
        proofChanges { version comment }
        delivery { address { lines postcode city country given } needs }
      }
      userErrors { code message }
    }
  }
`;

export const FINISH_TASK = gql`
  mutation FinishTask($input: FinishTaskInput!) {
    finishTask(input: $input) {
      changed
      task { id status inQueue allowedActions }
      userErrors { code message }
    }
  }
`;

// The server says whether a task is in its queue (inQueue) and what the worker may do
// with it (allowedActions): the column shows that, and decides nothing of its own.
function tasksReducer(tasks, action) {
  const next = new Map(tasks);
  if (action.type === "reset") return new Map(action.tasks.map((t) => [t.id, t]));
  if (action.type === "apply") {
    if (action.task.inQueue) next.set(action.task.id, action.task);
    else next.delete(action.task.id);
  }
  return next;
}

// The order's time on a queue's task: Rush, and the due date ("due in 3 h", "Late by 2 h").
function TaskTime({ task, now }) {
  const late = task.workOrder.isLate;
  if (!task.dueAt && task.priority !== "RUSH") return null;
  return html`<span class="task-due">
    ${task.priority === "RUSH" ? html`<span class="badge rush"><span aria-hidden="true">⚡ </span>Rush</span> ` : null}
    ${late ? html`<span class="badge late"><span aria-hidden="true">! </span>Late</span> ` : null}
    ${task.dueAt ? html`<span class=${"due" + (late ? " late" : "")}>${late ? "by " + overdue(task.dueAt, now) : dueText(task.workOrder, now)}</span>` : null}
  </span>`;
}

// The customer sent the proof back: what to change, in their words.
function ProofChanges({ task }) {
  if (!task.proofChanges) return null;
  return html`<span class="task-proof">
    <strong><span aria-hidden="true">↺ </span>Proof changes requested</strong> (version ${task.proofChanges.version}): <q>${task.proofChanges.comment}</q>
  </span>`;
}

// A delivery task's card says where to and what is needed there.
function DeliveryNote({ task }) {
  if (!task.delivery) return null;
  const lines = addressLines(task.delivery.address);
  return html`<span class="task-delivery">
    ${lines.length ? html`<span class="task-address">${lines.join(", ")}</span>` : html`<span class="task-address">No address given</span>`}
    ${task.delivery.needs.length ? html`<span class="task-needs">Needs ${task.delivery.needs.join(", ")}</span>` : null}
  </span>`;
}

function WaitingTask({ task, now, onStart, busy, connected }) {
  const labelId = useId("task");
  return html`<li class="task" data-task-id=${task.id}>
    <div class="task-text" id=${labelId}>
      <span class="task-order"><${Link} href=${"/orders/" + task.workOrder.id}>${task.workOrder.orderNumber}<//></span>
      <span class="task-customer">${task.workOrder.customer.name}</span>
      <span class="task-job">${task.workOrder.jobLine || "No description"}</span>
      <${ProofChanges} task=${task} />
      <${DeliveryNote} task=${task} />
      <span class="task-since">Waiting <time datetime=${task.waitingSince}>${duration(task.waitingSince, now)}</time></span>
      <${TaskTime} task=${task} now=${now} />
    </div>
    ${task.allowedActions.includes("START")
      ? html`<button type="button" class="primary touch" onClick=${() => onStart(task)} disabled=${!connected}
          aria-describedby=${labelId} aria-busy=${busy ? "true" : undefined}>Start</button>`
      : null}
  </li>`;
}

function StartedTask({ task, now, me, onFinish, busy, connected }) {
  const labelId = useId("task");
  const mine = task.pickedUpBy && task.pickedUpBy.id === me.id;
  return html`<li class=${"task started" + (mine ? " mine" : "")} data-task-id=${task.id}>
    <div class="task-text" id=${labelId}>
      <span class="task-order"><${Link} href=${"/orders/" + task.workOrder.id}>${task.workOrder.orderNumber}<//></span>
      <span class="task-customer">${task.workOrder.customer.name}</span>
      <span class="task-job">${task.workOrder.jobLine || "No description"}</span>
      <${ProofChanges} task=${task} />
      <${DeliveryNote} task=${task} />
      <span class="task-holder">
        ${mine ? html`<strong>You</strong>` : task.pickedUpBy ? task.pickedUpBy.name : "Someone"},
        for <time datetime=${task.startedAt}>${duration(task.startedAt, now)}</time>
      </span>
      <${TaskTime} task=${task} now=${now} />
    </div>
    ${task.allowedActions.includes("FINISH")
      ? html`<button type="button" class="primary touch" onClick=${() => onFinish(task)} disabled=${!connected}
          aria-describedby=${labelId} aria-busy=${busy ? "true" : undefined}>Finish</button>`
      : null}
  </li>`;
}

// Every page of `query`'s connection `field`, its nodes in order.
async function allPages(query, variables, field) {
  const nodes = [];
  let after = null;
  let first = null;
  for (;;) {
    const answer = (await transport.request(query, { ...variables, after }))[field];
    if (first === null) first = answer;
    answer.edges.forEach((edge) => nodes.push(edge.node));
    if (!answer.pageInfo.hasNextPage) return { nodes, first };
    after = answer.pageInfo.endCursor;
  }
}

// The ids of the column's tasks the server finds for `filter` (null: no filter), read
// again whenever a task comes into the queue that the last reading did not have.
function useMatches(department, filter) {
  const [matches, setMatches] = useState(null);
  const [reading, setReading] = useState(0);
  const known = useRef(null);
  useEffect(() => {
    if (!filter) {
      known.current = null;
      setMatches(null);
      return undefined;
    }
    let current = true;
    allPages(QUEUE_MATCHES, { department, search: filter }, "queue").then(
      ({ nodes }) => {
        if (!current) return;
        known.current = new Set(nodes.map((n) => n.id));
        setMatches(known.current);
      },
      () => {
        // Unanswered: the column shows everything rather than a stale selection.
        if (current) setMatches(null);
      },
    );
    return () => {
      current = false;
    };
  }, [department, filter, reading]);
  const seen = (task) => {
    if (known.current && task.inQueue && !known.current.has(task.id)) setReading((n) => n + 1);
  };
  return { matches, seen };
}

function QueueColumn({ department, me, filter }) {
  const [tasks, dispatch] = useReducer(tasksReducer, new Map());
  const { matches, seen } = useMatches(department.code, filter);
  const seenRef = useRef(seen);
  seenRef.current = seen;
  const [status, setStatus] = useState("connecting");
  const [failure, setFailure] = useState(null);
  const [alert, setAlert] = useState(null);
  const [busy, setBusy] = useState(null);
  const [attempt, setAttempt] = useState(0);
  const now = useNow(30000);
  const headingId = useId("queue");
  const alive = useRef(true);
  // Start and Finish are the server's to decide: offered only while the column is live.
  // Cut off, it keeps what it showed and says since when it was current.
  const online = useOnline();
  const connected = online && status === "live";
  const [updated, setUpdated] = useState(null);
  useEffect(() => (connected ? () => setUpdated(Date.now()) : undefined), [connected]);

  useEffect(() => {
    alive.current = true;
    let live = null;
    let retry = null;
    async function snapshot() {
      const { nodes, first } = await allPages(QUEUE_SNAPSHOT, { department: department.code }, "queue");
      return { all: nodes, cursor: first.eventCursor };
    }
    snapshot().then(
      ({ all, cursor }) => {
        if (!alive.current) return;
        dispatch({ type: "reset", tasks: all.filter((t) => t.inQueue) });
        setUpdated(Date.now());
        setFailure(null);
        live = follow(transport, {
          query: QUEUE_EVENTS,
          variables: { department: department.code, after: cursor },
          field: "queueEvents",
          onEvent: (event) => {
            dispatch({ type: "apply", task: event.task });
            seenRef.current(event.task);
          },
          onStatus: (name) => alive.current && setStatus(name),
          onFailure: (problem) => alive.current && setFailure(problem.message),
          // Away longer than the server keeps events: a new snapshot, then on from it.
          onExpired: () =>
            snapshot().then((fresh) => {
              if (alive.current) dispatch({ type: "reset", tasks: fresh.all.filter((t) => t.inQueue) });
              return fresh.cursor;
            }),
        });
      },
      (error) => {
        if (!alive.current) return;
        if (error.code === "UNAUTHENTICATED") return;
        setFailure(messageOf(error));
        if (FAILURES[error.code]) {
          // No longer a member, or the department is gone: waiting will not help.
          setStatus("failed");
          return;
        }
        setStatus("reconnecting");
        // The first snapshot failed (network, database restarting): try again shortly.
        retry = setTimeout(() => setAttempt((n) => n + 1), 3000);
      },
    );
    return () => {
      alive.current = false;
      clearTimeout(retry);
      if (live) live.stop();
    };
  }, [department.code, attempt]);

  async function refresh(taskId) {
    try {
      const { node } = await transport.request(QUEUE_TASK, { id: taskId });
      if (node && alive.current) dispatch({ type: "apply", task: node });
    } catch (error) {
      // The live feed brings it anyway.
    }
  }

  async function start(task) {
    setBusy(task.id);
    setAlert(null);
    try {
      const { startTask } = await transport.request(START_TASK, { input: { taskId: task.id } });
      if (startTask.userErrors.length) {
        const [problem] = startTask.userErrors;
        setAlert(`${task.workOrder.orderNumber}: ${problem.message}`);
        await refresh(task.id);
      } else if (startTask.task) {
        dispatch({ type: "apply", task: startTask.task });
      }
    } catch (error) {
      setAlert(`${task.workOrder.orderNumber}: ${messageOf(error)}`);
    }
    setBusy(null);
  }

  async function finish(task) {
    setBusy(task.id);
    setAlert(null);
    try {
      const { finishTask } = await transport.request(FINISH_TASK, { input: { taskId: task.id } });
      if (finishTask.userErrors.length) {
        setAlert(`${task.workOrder.orderNumber}: ${finishTask.userErrors[0].message}`);
        await refresh(task.id);
      } else {
        dispatch({ type: "apply", task: { ...task, ...finishTask.task } });
      }
    } catch (error) {
      setAlert(`${task.workOrder.orderNumber}: ${messageOf(error)}`);
    }
    setBusy(null);
  }

  const all = Array.from(tasks.values());
  const shown = matches ? all.filter((t) => matches.has(t.id)) : all;
  const { waiting, inProgress: started } = lanes(shown);

  return html`<section class="queue" aria-labelledby=${headingId} data-department=${department.code}>
    <div class="queue-head">
      <h2 id=${headingId}>${department.name}</h2>
      <${LiveStatus} status=${status} online=${online} updated=${updated} />
    </div>
    ${failure && status !== "live" ? html`<p class="message notice">${failure}</p>` : null}
    <div class="alert-slot">
      ${alert
        ? html`<div class="message error" role="alert">
            <span><span aria-hidden="true">⚠ </span>${alert}</span>
            <button type="button" class="small" onClick=${() => setAlert(null)}>Dismiss</button>
          </div>`
        : null}
    </div>
    ${matches
      ? html`<p class="queue-filtered" role="status">${shown.length} of ${all.length} ${all.length === 1 ? "task matches" : "tasks match"} “${filter}”.</p>`
      : null}
    <h3>Waiting <span class="count">${waiting.length}</span></h3>
    ${waiting.length
      ? html`<ol class="tasks waiting" aria-label=${department.name + ": waiting"}>
          ${waiting.map((t) => html`<${WaitingTask} key=${t.id} task=${t} now=${now} onStart=${start} busy=${busy === t.id} connected=${connected} />`)}
        </ol>`
      : html`<p class="empty">${matches ? "Nothing waiting matches the filter." : "Nothing waiting."}</p>`}
    <h3>In progress <span class="count">${started.length}</span></h3>
    ${started.length
      ? html`<ol class="tasks in-progress" aria-label=${department.name + ": in progress"}>
          ${started.map((t) => html`<${StartedTask} key=${t.id} task=${t} now=${now} me=${me} onFinish=${finish} busy=${busy === t.id} connected=${connected} />`)}
        </ol>`
      : html`<p class="empty">${matches ? "Nothing in progress matches the filter." : "Nobody is working on this queue."}</p>`}
  </section>`;
}

export function Queues({ me }) {
  useTitle("My queues");
  const departments = rolesOf(me).queues;
  const [filter, setFilter] = useState("");
  return html`<h1>My queues</h1>
    ${departments.length
      ? html`<${ScanField} />
        <div class="queue-filter">
          <${Field} label="Filter the queues" type="search" value=${filter} onInput=${setFilter}
            hint="Part of an order number, a customer's name or the job." maxlength="100" />
        </div>
        <div class="queues">
          ${departments.map((d) => html`<${QueueColumn} key=${d.code} department=${d} me=${me} filter=${filter.trim()} />`)}
        </div>`
      : html`<p class="message notice">You are not a member of any production or delivery department.</p>`}`;
}
