// Formatting shared by the app (through lib/ui.js) and the wall display: plain functions,
// no Preact and no session, so the display can import them without either.

// The shop's locale (PRESSROOM_LOCALE, which the server writes into the page): how people
// write amounts there. The API's one form is plain: "1250.50".
export const LOCALE =
  (typeof document !== "undefined" &&
    document.querySelector('meta[name="pressroom-locale"]')?.getAttribute("content")) || "en-GB";

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

// A due date as the screens say it: "due in 3 h 5 min", "2 h 10 min late", "due now",
// and "under 1 min" rather than "0 min" either side of it. Whether it is late is the
// server's to say (`isLate`).
export function dueText(dueAt, late, now = Date.now()) {
  if (!dueAt) return "";
  if (late) return `${overdue(dueAt, now)} late`;
  const due = Date.parse(dueAt);
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
