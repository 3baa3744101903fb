// Formatting shared by the app (through lib/ui.js) and the wall display: plain functions,
// no Preact and no session, so the display can import them without either.

const GROUPING = new Intl.NumberFormat("en", { useGrouping: true, maximumFractionDigits: 0 });

// "12500.00" -> "12,500.00", exactly: the integer part is grouped as a BigInt, the
// fraction is kept as the server wrote it (no float, no rounding).
export function decimal(amount) {
  const text = String(amount).trim();
  const found = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!found) return text;
  const [, sign, whole, fraction] = found;
  const grouped = GROUPING.format(BigInt(whole));
  return `${sign === "-" ? "-" : ""}${grouped}${fraction !== undefined ? "." + fraction : ""}`;
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
  const due = Date.parse(dueAt);
  const span = (from, to) => (to - from < 60000 ? "under 1 min" : duration(new Date(from).toISOString(), to));
  if (late) return `${span(due, now)} late`;
  return due > now ? `due in ${span(now, due)}` : "due now";
}

// An address as lines a person reads: street lines, then "postcode city", then country.
export function addressLines(address) {
  if (!address || !address.given) return [];
  const place = [address.postcode, address.city].filter(Boolean).join(" ");
  return [...address.lines, place, address.country].filter(Boolean);
}
