// Downloads a file the server streams (a spreadsheet, graphql.js EXPORTS, or what `load`
// fetches): fetched with the session's token (a plain link could not send it), then handed
// to the browser as a file, named `filename` or as the server names it.
import { html, useState } from "./html.js";
import { transport } from "./session.js";
import { inputInstant, wallClock } from "./format.js";
import { ErrorMessage } from "./messages.js";

export function DownloadButton({ file, params, filename, label, load }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);

  async function onClick() {
    setBusy(true);
    setError(null);
    try {
      const blob = await (load ? load() : transport.download(file, params));
      const url = URL.createObjectURL(blob);
      const link = document.createElement("a");
      link.href = url;
      link.download = filename || blob.name;
      document.body.appendChild(link);
      link.click();
      link.remove();
      URL.revokeObjectURL(url);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return html`<span class="download">
    <button type="button" onClick=${onClick} aria-busy=${busy ? "true" : undefined} disabled=${busy}>${label}</button>
    <${ErrorMessage} error=${error} />
  </span>`;
}

function isoDay({ year, month, day }) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${year}-${pad(month)}-${pad(day)}`;
}

// Work orders created, or task moves made, from one day through another: the shop's days
// (PRESSROOM_TIME_ZONE), from the first's midnight to the midnight after the last.
export function PeriodExports() {
  const today = wallClock(Date.now());
  const [from, setFrom] = useState(isoDay({ ...today, day: 1 }));
  const [to, setTo] = useState(isoDay(today));
  const valid = Boolean(from && to && from <= to);
  let params = null;
  if (valid) {
    const [year, month, day] = to.split("-").map(Number);
    const next = new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
    params = { from: inputInstant(from), to: inputInstant(next) };
  }
  const span = `${from}-to-${to}`;
  return html`<fieldset class="exports">
    <legend>Spreadsheets</legend>
    <label>From <input type="date" value=${from} onInput=${(e) => setFrom(e.currentTarget.value)} /></label>
    <label>Through <input type="date" value=${to} onInput=${(e) => setTo(e.currentTarget.value)} /></label>
    ${valid
      ? html`<${DownloadButton} file="work-orders.csv" params=${params}
            filename=${`work-orders-${span}.csv`} label="Work orders (CSV)" />
          <${DownloadButton} file="transitions.csv" params=${params}
            filename=${`task-moves-${span}.csv`} label="Task moves (CSV)" />`
      : html`<p class="hint">Choose a first day on or before the last.</p>`}
  </fieldset>`;
}
