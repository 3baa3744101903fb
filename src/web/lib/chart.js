// Charts with uPlot (vendored, src/web/vendor/uplot): bars for a figure per department,
// lines for a count per day. Each chart is drawn into its own box, redrawn at the box's
// width; its figures are in words under it, and the numbers always also in a table (the
// screen's "Show as table").
import uPlot from "../vendor/uplot/uPlot.esm.js";
import { LOCALE } from "./format.js";
import { html, useEffect, useRef } from "./html.js";
import { useId } from "./ui.js";

// Told apart by more than hue: solid, and lighter with a dash (lines) or a paler fill.
export const PALETTE = ["#1d4ed8", "#b45309", "#047857", "#7c3aed", "#be123c", "#0e7490"];

export function Chart({ options, data, label, summary, height = 260 }) {
  const box = useRef(null);
  const summaryId = useId("chart");
  useEffect(() => {
    const element = box.current;
    const plot = new uPlot({ ...options, width: element.clientWidth || 600, height }, data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [options, data]);
  // Its figures in words, under it: what a screen reader says after the chart's name.
  return html`<figure class="chart-figure">
    <div class="chart" ref=${box} role="img" aria-label=${label} aria-describedby=${summaryId}></div>
    <figcaption id=${summaryId} class="chart-summary">${summary}</figcaption>
  </figure>`;
}

const NUMBER = new Intl.NumberFormat(LOCALE);

// A value axis's figures as the shop writes them: "0,8" (de-DE).
function numbers(u, splits) {
  return splits.map((v) => NUMBER.format(v));
}

// Grouped bars: one group per name along x, one bar per series in it. Every series has a
// place of its own on x (its group's centre, shifted), null at the others' places.
export function barChart(names, series, unit) {
  const count = series.length;
  const step = 0.8 / count;
  const xs = [];
  names.forEach((_, group) => series.forEach((__, i) => xs.push(group - 0.4 + step * (i + 0.5))));
  const data = [xs, ...series.map((s, i) => xs.map((_, k) => (k % count === i ? s.values[Math.floor(k / count)] : null)))];
  const options = {
    // Bars measure from zero.
    scales: {
      x: { time: false, range: [-0.6, names.length - 0.4] },
      y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    legend: { live: false },
    axes: [
      { splits: () => names.map((_, group) => group), values: (u, splits) => splits.map((group) => names[group] ?? "") },
      { label: unit, size: 60, values: numbers },
    ],
    series: [
      { label: "Department" },
      ...series.map((s, i) => ({
        label: s.label,
        fill: PALETTE[i % PALETTE.length] + (i % 2 ? "88" : ""),
        stroke: PALETTE[i % PALETTE.length],
        paths: uPlot.paths.bars({ size: [0.9, 80] }),
        points: { show: false },
      })),
    ],
    cursor: { show: false },
  };
  return { options, data };
}

const DAY_SECONDS = 86400;
// A day as the shop writes it (PRESSROOM_LOCALE): "5 Dec" (en-GB), "5. Dez." (de-DE).
const DAY = new Intl.DateTimeFormat(LOCALE, { day: "numeric", month: "short", timeZone: "UTC" });

function dayWords(seconds) {
  return DAY.format(new Date(seconds * 1000));
}

// Lines over days: `days` as "YYYY-MM-DD" (the shop's calendar), one series of counts each.
// A day is placed at its midnight in UTC and read back in UTC, so neither the browser's
// zone nor a clock change moves it off its date; ticks fall on whole days.
export function lineChart(days, series) {
  const xs = days.map((day) => {
    const [year, month, date] = day.split("-").map(Number);
    return Date.UTC(year, month - 1, date) / 1000;
  });
  const options = {
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "UTC"),
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    legend: { live: false },
    axes: [
      {
        incrs: [1, 2, 7, 14].map((n) => n * DAY_SECONDS),
        space: 70,
        values: (u, splits) => splits.map(dayWords),
      },
      { label: "completed", size: 50, values: numbers },
    ],
    series: [
      { label: "Day", value: (u, seconds) => (seconds === null ? "—" : dayWords(seconds)) },
      ...series.map((s, i) => ({
        label: s.label,
        stroke: PALETTE[i % PALETTE.length],
        width: 2,
        dash: i % 2 ? [6, 4] : undefined,
        points: { show: true, size: 5 },
      })),
    ],
  };
  return { options, data: [xs, ...series.map((s) => s.values)] };
}
