// Formatting shared by the app (through lib/ui.js) and the wall display: plain functions,
// no Preact and no session, so the display can import them without either.

function meta(name) {
  return typeof document !== "undefined"
    ? document.querySelector(`meta[name="${name}"]`)?.getAttribute("content")
    : null;
}

// The shop's locale (PRESSROOM_LOCALE, which the server writes into the page): how people
// write amounts and dates there. The API's one form is plain: "1250.50".
export const LOCALE = meta("pressroom-locale") || "en-GB";

// The shop's time zone (PRESSROOM_TIME_ZONE, written into the page too): every time a
// screen shows or a form reads is the shop's, whatever the browser's zone. The app names
// it once, at the foot of every screen.
export const TIME_ZONE = meta("pressroom-time-zone") || "UTC";

const WALL = new Intl.DateTimeFormat("en-GB", {
  timeZone: TIME_ZONE, hourCycle: "h23",
  year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
});

// What the shop's clocks read at an instant: { year, month, day, hour, minute }, as numbers.
export function wallClock(instant) {
  const parts = {};
  for (const { type, value } of WALL.formatToParts(new Date(instant))) {
    if (type !== "literal") parts[type] = Number(value);
  }
  return parts;
}

function pad(n) {
  return String(n).padStart(2, "0");
}

// 24-hour times in the shop's zone, with the date when it is not the shop's today:
// "14:30", "2026-12-04 14:30".
export function when(iso, now = Date.now()) {
  if (!iso) return "";
  const d = wallClock(iso);
  const time = `${pad(d.hour)}:${pad(d.minute)}`;
  const today = wallClock(now);
  if (d.year === today.year && d.month === today.month && d.day === today.day) return time;
  return `${d.year}-${pad(d.month)}-${pad(d.day)} ${time}`;
}

// An instant as a datetime-local input shows it, in the shop's zone: "2026-12-05T14:30".
export function inputValue(iso) {
  if (!iso) return "";
  const d = wallClock(iso);
  return `${d.year}-${pad(d.month)}-${pad(d.day)}T${pad(d.hour)}:${pad(d.minute)}`;
}

// A datetime-local input's "2026-12-05T14:30" (or a date input's "2026-12-05", its
// midnight), read as the shop's clocks: the instant, as the API takes it (ISO 8601 in UTC).
// The zone's offset is found at the guess and again at the answer, so a time beside a clock
// change lands on the right side of it. What is not such a value is sent as it is, for the
// server to say what is wrong with it.
export function inputInstant(value) {
  const found = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(value);
  if (!found) return value;
  const [year, month, day, hour, minute] = found.slice(1).map((n) => Number(n || 0));
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  const offset = (at) => {
    const d = wallClock(at);
    return Date.UTC(d.year, d.month - 1, d.day, d.hour, d.minute) - at;
  };
  const first = asUtc - offset(asUtc);
  return new Date(asUtc - offset(first)).toISOString();
}

function marks(locale) {
  const parts = new Intl.NumberFormat(locale).formatToParts(12345.5);
  return {
    decimal: parts.find((p) => p.type === "decimal").value,
    grouping: new Intl.NumberFormat(locale, { useGrouping: true, maximumFractionDigits: 0 }),
  };
}

// "12500.00" -> "12,500.00" (en-GB), "12.500,00" (de-DE), exactly: the integer part is
// grouped as a BigInt, the fraction is kept as the server wrote it (no float, no rounding).
export function decimal(amount, locale = LOCALE) {
  const text = String(amount).trim();
  const found = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!found) return text;
  const [, sign, whole, fraction] = found;
  const { decimal: point, grouping } = marks(locale);
  const grouped = grouping.format(BigInt(whole));
  return `${sign === "-" ? "-" : ""}${grouped}${fraction !== undefined ? point + fraction : ""}`;
}

// An amount as a person types it, in the shop's notation or the plain one ("480,50",
// "1.250,00", "1 250,00", "480.50"), as the API takes it ("1250.00"); null when it is not
// an amount. One mark of a kind followed by three digits groups thousands unless it is
// the locale's decimal mark; with both kinds, the last one is the decimal mark.
export function readAmount(input, locale = LOCALE) {
  const text = String(input).trim().replace(/[\s\u00a0\u202f']/g, "");
  const found = /^([+-]?)(\d[\d.,]*)$/.exec(text);
  if (!found) return null;
  const [, sign, body] = found;
  const dots = body.split(".").length - 1;
  const commas = body.split(",").length - 1;
  let point = null;
  if (dots && commas) point = body.lastIndexOf(".") > body.lastIndexOf(",") ? "." : ",";
  else if (dots + commas === 1) {
    const mark = dots ? "." : ",";
    const after = body.length - body.indexOf(mark) - 1;
    point = mark === marks(locale).decimal || after !== 3 ? mark : null;
  }
  const at = point ? body.lastIndexOf(point) : body.length;
  const whole = body.slice(0, at);
  const fraction = point ? body.slice(at + 1) : null;
  if (fraction !== null && !/^\d+$/.test(fraction)) return null;
  const groups = whole.split(/[.,]/);
  if (groups.length > 1 && (groups[0].length > 3 || groups.slice(1).some((g) => g.length !== 3))) return null;
  const digits = groups.join("");
  if (!/^\d+$/.test(digits)) return null;
  return `${sign === "-" ? "-" : ""}${digits}${fraction !== null ? "." + fraction : ""}`;
}

// What a person is shown when an amount could not be read: the forms it may take.
export function amountHint(locale = LOCALE) {
  return `Write an amount like ${decimal("1250.50", locale)} or 1250.50.`;
}

// Exact decimals as the server sent them, grouped, with their currency.
export function money(m) {
  return m ? `${decimal(m.amount)} ${m.currency}` : "—";
}

// A per-currency list (a balance, what was charged or paid): "none" when empty, as a
// missing quote is (the API names no currency for nothing, and the shop's may not be EUR).
export function balances(list) {
  if (!list || !list.length) return "none";
  return list.map(money).join(", ");
}

// How long since `since`: "12 min", "3 h 5 min", then "2 days" from 48 hours on.
export function duration(since, now = Date.now()) {
  const minutes = Math.max(0, Math.floor((now - Date.parse(since)) / 60000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

// What an order's due date says now, from the server's fields (status, dueAt, isLate,
// completedAt), the one rule of every screen: an ACTIVE order "due in 3 h 5 min", "due
// now" or "2 h 10 min late" (late is the server's to say: isLate); a COMPLETED one "done on
// time" or "done 16 h 0 min late" (completed after its due date; "done" when it was imported
// without that date); a CANCELLED one nothing, as with no due date. "under 1 min" rather
// than "0 min" either side of the due date.
export function dueText(order, now = Date.now()) {
  if (!order.dueAt || order.status === "CANCELLED") return "";
  const due = Date.parse(order.dueAt);
  if (order.status === "COMPLETED") {
    if (!order.completedAt) return "done";
    const done = Date.parse(order.completedAt);
    return done > due ? `done ${span(due, done)} late` : "done on time";
  }
  if (order.isLate) return `${span(due, now)} late`;
  return due > now ? `due in ${span(now, due)}` : "due now";
}

// How long past its due date an order is: "8 h 7 min" (the Late badge says the rest).
export function overdue(dueAt, now = Date.now()) {
  return span(Date.parse(dueAt), now);
}

function span(from, to) {
  return to - from < 60000 ? "under 1 min" : duration(new Date(from).toISOString(), to);
}

// An address as lines a person reads: street lines, then "postcode city", then country.
export function addressLines(address) {
  if (!address || !address.given) return [];
  const place = [address.postcode, address.city].filter(Boolean).join(" ");
  return [...address.lines, place, address.country].filter(Boolean);
}

// "Harbour Books’ ledger", "ACME’s ledger".
export function possessive(name) {
  return /s$/i.test(name) ? `${name}’` : `${name}’s`;
}
