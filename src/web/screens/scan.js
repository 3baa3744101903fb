// "Scan or type an order number" at the top of the queues: a USB scanner types the
// ticket's number (or its QR code's address) and Enter; the server says which of the
// order's tasks is the worker's and what one scan does (scan), and the same move a button
// makes is made at once, with no step to confirm. The field takes the focus back
// whenever nothing else has it, so the next scan lands in it.
import { gql } from "../lib/graphql.js";
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { request } from "../lib/data.js";
import { messageOf } from "../lib/messages.js";
import { useId } from "../lib/ui.js";

const SCAN = gql`
  query Scan($code: String!) {
    scan(code: $code) { message action task { id } }
  }
`;

const START = gql`
  mutation ScanStart($input: StartTaskInput!) {
    startTask(input: $input) { changed userErrors { code message } }
  }
`;

const FINISH = gql`
  mutation ScanFinish($input: FinishTaskInput!) {
    finishTask(input: $input) { changed userErrors { code message } }
  }
`;

// The moves a scan can make, by the action the server named.
const MOVES = {
  START: { mutation: START, field: "startTask", done: "Started" },
  FINISH: { mutation: FINISH, field: "finishTask", done: "Finished" },
};

export function ScanField() {
  const id = useId("scan");
  const field = useRef(null);
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState(null);

  useEffect(() => {
    field.current.focus();
    const idle = setInterval(() => {
      const active = document.activeElement;
      if (field.current && (!active || active === document.body)) field.current.focus();
    }, 1000);
    return () => clearInterval(idle);
  }, []);

  async function onSubmit(event) {
    event.preventDefault();
    const typed = code.trim();
    if (!typed || busy) return;
    setBusy(true);
    setCode("");
    try {
      const { scan } = await request(SCAN, { code: typed });
      const move = scan.action && MOVES[scan.action];
      if (!move) {
        setSaid({ ok: false, text: scan.message });
      } else {
        const answer = (await request(move.mutation, { input: { taskId: scan.task.id } }))[move.field];
        setSaid(answer.userErrors.length
          ? { ok: false, text: `${scan.message} — ${answer.userErrors[0].message}` }
          : { ok: true, text: `${move.done}: ${scan.message}` });
      }
    } catch (error) {
      setSaid({ ok: false, text: messageOf(error) });
    }
    setBusy(false);
    field.current.focus();
  }

  return html`<form class="scan" onSubmit=${onSubmit}>
    <label for=${id}>Scan or type an order number</label>
    <div class="scan-row">
      <input id=${id} ref=${field} value=${code} onInput=${(e) => setCode(e.currentTarget.value)}
        autocomplete="off" spellcheck="false" enterkeyhint="go" aria-describedby=${id + "-said"} />
      <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Go</button>
    </div>
    <p id=${id + "-said"} role="status" class=${said ? "message " + (said.ok ? "success" : "error") : "hint"}>
      ${said ? html`<span aria-hidden="true">${said.ok ? "✓ " : "⚠ "}</span>${said.text}` : "Scan a job ticket: the first scan starts the job, the next one finishes it."}
    </p>
  </form>`;
}
