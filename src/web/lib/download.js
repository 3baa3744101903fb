// Downloads a file the server streams (a spreadsheet, graphql.js EXPORTS, or what `load`
// fetches): fetched with the session's token (a plain link could not send it), then handed
// to the browser as a file, named `filename` or as the server names it.
import { html, useState } from "./html.js";
import { transport } from "./session.js";
import { ErrorMessage } from "./ui.js";

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

// The day `date` (YYYY-MM-DD) begins, in this browser's time zone, as an ISO moment.
function dayStart(date) {
  const [year, month, day] = date.split("-").map(Number);
  return new Date(year, month - 1, day).toISOString();
}

function isoDay(moment) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${moment.getFullYear()}-${pad(moment.getMonth() + 1)}-${pad(moment.getDate())}`;
}

// Work orders created, or task moves made, from one day through another.
export function PeriodExports() {
  const today = new Date();
  const [from, setFrom] = useState(isoDay(new Date(today.getFullYear(), today.getMonth(), 1)));
  const [to, setTo] = useState(isoDay(today));
  const valid = Boolean(from && to && from <= to);
  let params = null;
  if (valid) {
    const end = new Date(dayStart(to));
    end.setDate(end.getDate() + 1);
    params = { from: dayStart(from), to: end.toISOString() };
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
