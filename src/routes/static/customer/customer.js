// The customer's page (src/routes/customer_page.py), served whole by the server: this
// script only writes its times in the shop's locale and keeps it current, asking for the
// order's state at most once a minute and reloading the page when the order changed. Its
// words, in the shop's language, come with the page (the body's data-words).

const body = document.body;
const main = document.getElementById("main");
const LOCALE = body.dataset.locale || "en-GB";
const ZONE = body.dataset.zone || "UTC";
const WORDS = JSON.parse(body.dataset.words);
const EVERY_MS = 60_000;
const STYLES = {
  date: { dateStyle: "full", timeStyle: "short" },
  moment: { dateStyle: "medium", timeStyle: "short" },
  time: { timeStyle: "short" },
};

function format(element) {
  const options = { ...STYLES[element.dataset.style], timeZone: ZONE };
  let formatter;
  try {
    formatter = new Intl.DateTimeFormat(LOCALE, options);
  } catch {
    formatter = new Intl.DateTimeFormat(undefined, options);
  }
  element.textContent = formatter.format(new Date(element.dateTime));
}

function formatAll() {
  for (const element of document.querySelectorAll("time[data-style]")) format(element);
}

// Someone writing a comment or a name keeps what they wrote: the page says it changed
// instead of reloading under them.
function busy() {
  const fields = main.querySelectorAll("input, textarea");
  return Array.from(fields).some((field) => field.value.trim() !== "");
}

function changed() {
  if (!busy()) {
    window.location.reload();
    return;
  }
  if (document.getElementById("changed")) return;
  const note = document.createElement("p");
  note.id = "changed";
  note.className = "changed";
  note.setAttribute("role", "status");
  note.textContent = `${WORDS.changed} `;
  const again = document.createElement("button");
  again.type = "button";
  again.textContent = WORDS.show_changes;
  again.addEventListener("click", () => window.location.reload());
  note.append(again);
  main.prepend(note);
}

function stamp(moment, text) {
  const updated = document.getElementById("updated");
  const time = document.createElement("time");
  time.dateTime = moment;
  time.dataset.style = "time";
  time.lang = LOCALE;
  updated.replaceChildren(`${text} `, time);
  format(time);
}

let asked = Date.now();

async function refresh() {
  const url = main && main.dataset.state;
  if (!url) return;
  asked = Date.now();
  let response;
  try {
    response = await fetch(url, { cache: "no-store", credentials: "omit" });
  } catch {
    stamp(new Date(asked).toISOString(), WORDS.unreachable);
    return;
  }
  if (response.status === 404 || response.status === 410) {
    // The link stopped working: its page says so.
    window.location.reload();
    return;
  }
  if (!response.ok) {
    stamp(new Date(asked).toISOString(), WORDS.not_updated);
    return;
  }
  const state = await response.json();
  if (state.fingerprint !== main.dataset.fingerprint) {
    changed();
  }
  stamp(state.checkedAt, WORDS.updated);
}

formatAll();
setInterval(() => {
  if (document.visibilityState === "visible") refresh();
}, EVERY_MS);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && Date.now() - asked >= EVERY_MS) refresh();
});
// For the browser tests: a refresh now, rather than a minute from now.
window.__pressroom = { refresh };
