// The app shell: session, navigation and routes. Each screen is one module in screens/.
import { html, render, useEffect, useRef, useState } from "./lib/html.js";
import { Link, match, navigate, query, useLocation } from "./lib/router.js";
import { onForbidden, onSession, rolesOf, session, setMe } from "./lib/session.js";
import { useRefreshOnVisible } from "./lib/data.js";
import { ErrorMessage, Loading } from "./lib/messages.js";
import { TIME_ZONE, useTitle } from "./lib/ui.js";
import { SignIn, loadMe, signOut } from "./screens/signin.js";
import { Queues } from "./screens/queues.js";
import { WorkOrders } from "./screens/workorders.js";
import { NewWorkOrder } from "./screens/neworder.js";
import { WorkOrderPage } from "./screens/workorder.js";
import { Accounts, CustomerLedger } from "./screens/accounts.js";
import { CustomerPage, Customers } from "./screens/customers.js";
import { Admin } from "./screens/admin.js";
import { Insights } from "./screens/insights.js";
import { Tickets } from "./screens/ticket.js";

function useSession() {
  const [state, setState] = useState(session());
  useEffect(() => onSession(setState), []);
  return state;
}

// Where each person starts: the floor at their queues, Accounts at the ledger, the rest
// at the work orders.
function landing(me) {
  const roles = rolesOf(me);
  if (roles.queues.length) return "/queues";
  if (roles.accounts && !roles.sales && !roles.admin) return "/accounts";
  return "/orders";
}

function Redirect({ to }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function NotFound() {
  useTitle("Not found");
  return html`<h1>Page not found</h1>
    <p>There is nothing at this address. <${Link} href="/">Go to your start page</${Link}>.</p>`;
}

function NotAllowed({ what }) {
  useTitle(what);
  return html`<h1>${what}</h1>
    <p class="message notice">Your account does not give you access to this screen.${" "}
    <${Link} href="/">Go to your start page</${Link}>.</p>`;
}

function screen(path, me) {
  const roles = rolesOf(me);
  const [pathname] = path.split("?");
  if (pathname === "/" || pathname === "/signin") return html`<${Redirect} to=${landing(me)} />`;
  if (match("/queues", pathname)) return html`<${Queues} me=${me} />`;
  if (match("/orders", pathname)) return html`<${WorkOrders} me=${me} path=${path} />`;
  if (match("/orders/new", pathname)) {
    return roles.sales ? html`<${NewWorkOrder} />` : html`<${NotAllowed} what="New work order" />`;
  }
  const ticket = match("/orders/:id/ticket", pathname);
  if (ticket) return html`<${Tickets} ids=${[ticket.id]} />`;
  if (match("/tickets", pathname)) {
    const ids = (query(path).get("ids") || "").split(",").filter(Boolean);
    return html`<${Tickets} ids=${ids} />`;
  }
  const order = match("/orders/:id", pathname);
  if (order) return html`<${WorkOrderPage} id=${order.id} me=${me} />`;
  if (match("/insights", pathname)) {
    return roles.sales ? html`<${Insights} me=${me} />` : html`<${NotAllowed} what="Insights" />`;
  }
  // Customers: for whoever the server lets list them (`customers` asks SEES_QUOTES).
  if (match("/customers", pathname)) {
    return roles.seesQuote ? html`<${Customers} me=${me} path=${path} />` : html`<${NotAllowed} what="Customers" />`;
  }
  const customerPage = match("/customers/:id", pathname);
  if (customerPage) {
    return roles.seesQuote
      ? html`<${CustomerPage} id=${customerPage.id} me=${me} />`
      : html`<${NotAllowed} what="Customers" />`;
  }
  if (match("/accounts", pathname)) {
    return roles.accounts ? html`<${Accounts} path=${path} />` : html`<${NotAllowed} what="Accounts" />`;
  }
  const customer = match("/accounts/:id", pathname);
  if (customer) {
    return roles.accounts
      ? html`<${CustomerLedger} id=${customer.id} />`
      : html`<${NotAllowed} what="Accounts" />`;
  }
  if (pathname === "/admin") return html`<${Redirect} to="/admin/people" />`;
  const admin = match("/admin/:section", pathname);
  if (admin) {
    return roles.admin ? html`<${Admin} section=${admin.section} me=${me} />` : html`<${NotAllowed} what="Admin" />`;
  }
  return html`<${NotFound} />`;
}

function Navigation({ me, path }) {
  const roles = rolesOf(me);
  const links = [
    roles.queues.length ? ["/queues", "My queues"] : null,
    ["/orders", "Work orders"],
    roles.seesQuote ? ["/customers", "Customers"] : null,
    roles.sales ? ["/insights", "Insights"] : null,
    roles.accounts ? ["/accounts", "Accounts"] : null,
    roles.admin ? ["/admin/people", "Admin"] : null,
  ].filter(Boolean);
  const section = "/" + path.split("?")[0].split("/")[1];
  return html`<nav aria-label="Main">
    <ul>
      ${links.map(([href, label]) => html`<li key=${href}>
        <${Link} href=${href} aria-current=${href.startsWith(section) && section !== "/" ? "page" : undefined}>${label}<//>
      </li>`)}
    </ul>
  </nav>`;
}

// `me` (name, admin, departments) is read again when the tab becomes visible again and
// when a request is refused FORBIDDEN, so a new department's queue appears (and a removed
// one goes) without reloading. One read at a time.
function useFreshMe() {
  const running = useRef(false);
  function reread() {
    const token = session().token;
    if (running.current || !token) return;
    running.current = true;
    loadMe().then(
      (me) => {
        running.current = false;
        // Not if the person signed out (or in as another) meanwhile.
        if (me && session().token === token) setMe(me);
      },
      () => {
        running.current = false;
      },
    );
  }
  useRefreshOnVisible(reread);
  useEffect(() => onForbidden(reread), []);
}

function Layout({ me, path, children }) {
  useFreshMe();
  const main = useRef(null);
  const first = useRef(true);
  const [pathname] = path.split("?");
  // After navigating, keyboard and screen reader users start at the new screen.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (main.current) main.current.focus({ preventScroll: false });
  }, [pathname]);
  const [leaving, setLeaving] = useState(false);
  async function leave() {
    setLeaving(true);
    await signOut();
  }
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <${Link} class="brand" href="/">Pressroom<//>
      <${Navigation} me=${me} path=${path} />
      <div class="who">
        <span class="name">${me.name}${me.isAdmin ? html` <span class="tag">admin</span>` : null}</span>
        <button type="button" onClick=${leave} aria-busy=${leaving ? "true" : undefined}>Sign out</button>
      </div>
    </header>
    <main id="main" ref=${main} tabindex="-1">${children}</main>
    <footer class="foot"><p>Times are the shop's: ${TIME_ZONE.replaceAll("_", " ")}.</p></footer>`;
}

function Boot() {
  const [error, setError] = useState(null);
  useEffect(() => {
    loadMe().then((me) => me && setMe(me), setError);
  }, []);
  return html`<main id="main">
    ${error ? html`<h1>Pressroom</h1><${ErrorMessage} error=${error} />
      <button type="button" onClick=${() => window.location.reload()}>Try again</button>`
      : html`<${Loading} what="Signing you in" />`}
  </main>`;
}

function App() {
  const state = useSession();
  const path = useLocation();
  if (!state.token) return html`<${SignIn} notice=${state.notice} />`;
  if (!state.me) return html`<${Boot} />`;
  return html`<${Layout} me=${state.me} path=${path}>${screen(path, state.me)}<//>`;
}

// The service worker keeps the app's own files, so an installed app opens without a
// connection (sw.js). Browsers allow one on https and on localhost only; without it the
// app works as before, so a refusal is not an error.
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});

const root = document.getElementById("app");
root.textContent = "";
render(html`<${App} />`, root);
