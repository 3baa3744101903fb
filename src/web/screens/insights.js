// Insights (admins and Sales): how work flowed over the last 7, 30 or 90 days, from the
// server's flow figures (flowSummary): waiting and working time per department as bars
// (in route order), tasks completed per day as lines, the on-time rate, the
// lead time and the time orders waited for the customer's approval as figures. Every chart
// has its figures in words under it and its numbers as a table behind "Show as table".
import { gql } from "../lib/graphql.js";
import { html, useMemo, useState } from "../lib/html.js";
import { Chart, barChart, lineChart } from "../lib/chart.js";
import { PeriodExports } from "../lib/download.js";
import { rolesOf } from "../lib/session.js";
import { useQuery } from "../lib/data.js";
import { ErrorMessage, Loading } from "../lib/messages.js";
import { useId, useTitle } from "../lib/ui.js";

const FLOW = gql`
  query Insights($from: DateTime!, $to: DateTime!) {
    flowSummary(from: $from, to: $to) {
      departments {
        department { id name }
        started completed wip waiting
        waitTime { count p50 p85 max }
        workTime { count p50 p85 max }
        perDay { day completed }
      }
      onTime { completed onTime lateNow rate }
      leadTime { count p50 p85 max }
      customerWaitTime { count p50 p85 max }
    }
  }
`;

const PERIODS = [7, 30, 90];

// Seconds in words, as a chart's reader wants them: "45 min", "3.5 h", "2.1 days".
function spoken(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

const tasks = (n) => `${n} ${n === 1 ? "task" : "tasks"}`;

// A times chart in words, department by department: "Print: median 2.0 h, longest 6.0 h
// (3 tasks)".
function timesInWords(departments, pick) {
  return departments.map((d) => {
    const stats = pick(d);
    return stats.count
      ? `${d.department.name}: median ${spoken(stats.p50)}, longest ${spoken(stats.max)} (${tasks(stats.count)}).`
      : `${d.department.name}: no tasks.`;
  }).join(" ");
}

function perDayInWords(departments) {
  return departments.map((d) => {
    const counts = d.perDay.map((p) => p.completed);
    const total = counts.reduce((sum, n) => sum + n, 0);
    return total
      ? `${d.department.name}: ${tasks(total)} completed, at most ${Math.max(...counts)} in a day.`
      : `${d.department.name}: none completed.`;
  }).join(" ");
}

// What the rate counts, plainly: the orders done with a due date, and the open ones
// already late (late whenever they are done).
function onTimeInWords({ completed, onTime, lateNow }) {
  return `${onTime} of ${completed + lateNow} orders on time: ${completed} completed with a due date, ${lateNow} open and late now`;
}

function Figure({ label, value, detail }) {
  return html`<div class="figure"><p class="figure-label">${label}</p>
    <p class="figure-value">${value}</p>${detail ? html`<p class="hint">${detail}</p>` : null}</div>`;
}

// A chart with its numbers: the table behind "Show as table", reachable by keyboard.
function ChartWithTable({ title, hint, chart, table }) {
  const [shown, setShown] = useState(false);
  const id = useId("table");
  return html`<section class="panel chart-panel" aria-label=${title}>
    <div class="title-row"><h2>${title}</h2>
      <button type="button" aria-expanded=${shown ? "true" : "false"} aria-controls=${id}
        onClick=${() => setShown(!shown)}>${shown ? "Hide table" : "Show as table"}</button></div>
    ${hint ? html`<p class="hint">${hint}</p>` : null}
    ${chart}
    <div id=${id} hidden=${!shown}>${table}</div>
  </section>`;
}

function TimesTable({ departments, pick }) {
  return html`<div class="table-wrap"><table>
    <thead><tr><th scope="col">Department</th><th scope="col" class="num">Tasks</th>
      <th scope="col" class="num">Median</th><th scope="col" class="num">85th percentile</th>
      <th scope="col" class="num">Longest</th></tr></thead>
    <tbody>${departments.map((d) => {
      const stats = pick(d);
      return html`<tr key=${d.department.id}><th scope="row">${d.department.name}</th>
        <td class="num">${stats.count}</td><td class="num">${spoken(stats.p50)}</td>
        <td class="num">${spoken(stats.p85)}</td><td class="num">${spoken(stats.max)}</td></tr>`;
    })}</tbody>
  </table></div>`;
}

function PerDayTable({ departments }) {
  const days = departments.length ? departments[0].perDay.map((p) => p.day) : [];
  return html`<div class="table-wrap"><table>
    <thead><tr><th scope="col">Day</th>${departments.map((d) => html`<th scope="col" class="num" key=${d.department.id}>${d.department.name}</th>`)}</tr></thead>
    <tbody>${days.map((day, i) => html`<tr key=${day}><th scope="row">${day}</th>
      ${departments.map((d) => html`<td class="num" key=${d.department.id}>${d.perDay[i].completed}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

export function Insights({ me }) {
  useTitle("Insights");
  const [days, setDays] = useState(30);
  const period = useMemo(() => {
    const to = new Date();
    const from = new Date(to.getTime() - days * 86400000);
    return { from: from.toISOString(), to: to.toISOString() };
  }, [days]);
  const flow = useQuery(FLOW, period);
  const summary = flow.data && flow.data.flowSummary;
  // In route order, as the server lists them, like every list of departments.
  const departments = summary ? summary.departments : [];
  const charts = useMemo(() => {
    if (!summary) return null;
    const names = departments.map((d) => d.department.name);
    const hours = (s) => (s === null ? null : s / 3600);
    const times = (pick) => barChart(names, [
      { label: "Median", values: departments.map((d) => hours(pick(d).p50)) },
      { label: "85th percentile", values: departments.map((d) => hours(pick(d).p85)) },
    ], "hours");
    const days = departments.length ? departments[0].perDay.map((p) => p.day) : [];
    return {
      waiting: times((d) => d.waitTime),
      working: times((d) => d.workTime),
      perDay: lineChart(days, departments.map((d) => ({ label: d.department.name, values: d.perDay.map((p) => p.completed) }))),
    };
  }, [summary, departments]);

  return html`<div class="title-row"><h1>Insights</h1>
      <div class="periods" role="group" aria-label="Period">
        ${PERIODS.map((n) => html`<button type="button" key=${n} aria-pressed=${days === n ? "true" : "false"}
          class=${days === n ? "primary" : ""} onClick=${() => setDays(n)}>Last ${n} days</button>`)}
      </div></div>
    <${ErrorMessage} error=${flow.error} />
    ${!summary ? html`<${Loading} what="Reading the history" />` : html`
      <div class="figures">
        <${Figure} label="On time" value=${summary.onTime.rate === null ? "—" : Math.round(summary.onTime.rate * 100) + " %"}
          detail=${onTimeInWords(summary.onTime)} />
        <${Figure} label="Lead time, median" value=${spoken(summary.leadTime.p50)}
          detail=${`85th percentile ${spoken(summary.leadTime.p85)}; ${summary.leadTime.count} orders completed`} />
        <${Figure} label="Waiting for the customer, median" value=${spoken(summary.customerWaitTime.p50)}
          detail=${`85th percentile ${spoken(summary.customerWaitTime.p85)}; ${summary.customerWaitTime.count} orders with proofs`} />
        ${departments.map((d) => html`<${Figure} key=${d.department.id} label=${d.department.name + " now"}
          value=${`${d.waiting} waiting`} detail=${`${d.wip} in progress`} />`)}
      </div>
      <${ChartWithTable} title="Waiting for a department"
        hint="From when a task could start (or was reopened) to its start, as its queue card counts it."
        chart=${html`<${Chart} options=${charts.waiting.options} data=${charts.waiting.data}
          label=${"Waiting time per department, in hours: median and 85th percentile"}
          summary=${timesInWords(departments, (d) => d.waitTime)} />`}
        table=${html`<${TimesTable} departments=${departments} pick=${(d) => d.waitTime} />`} />
      <${ChartWithTable} title="Working time"
        chart=${html`<${Chart} options=${charts.working.options} data=${charts.working.data}
          label=${"Working time per department, in hours: median and 85th percentile"}
          summary=${timesInWords(departments, (d) => d.workTime)} />`}
        table=${html`<${TimesTable} departments=${departments} pick=${(d) => d.workTime} />`} />
      <${ChartWithTable} title="Tasks completed per day"
        chart=${html`<${Chart} options=${charts.perDay.options} data=${charts.perDay.data}
          label=${"Tasks completed per day, one line per department"}
          summary=${perDayInWords(departments)} />`}
        table=${html`<${PerDayTable} departments=${departments} />`} />
      ${rolesOf(me).accounts ? html`<${PeriodExports} />` : null}`}`;
}
