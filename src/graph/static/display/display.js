// The wall display: a department's queue, live. Takes a snapshot, then follows the
// queue's events from that snapshot's cursor over graphql-transport-ws; on any drop
// it reconnects forever from the last cursor it received, so it never misses one.
(function () {
  "use strict";

  var department = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
  var token = new URLSearchParams(location.search).get("token") || "";
  var endpoint = location.origin + "/graphql";
  var socketUrl = endpoint.replace(/^http/, "ws");

  var TASK = "id status availableAt startedAt pickedUpBy { name } " +
             "workOrder { orderNumber customer { name } }";
  var SNAPSHOT = "query Queue($department: String!, $after: String) {" +
    " queue(department: $department, first: 100, after: $after) {" +
    " eventCursor pageInfo { hasNextPage endCursor } edges { node { " + TASK + " } } } }";
  var EVENTS = "subscription QueueEvents($department: String!, $after: String) {" +
    " queueEvents(department: $department, after: $after) { cursor kind task { " + TASK + " } } }";

  var tasks = new Map();
  var cursor = null;
  var socket = null;
  var retries = 0;
  var state = { status: "connecting", received: 0, connects: 0 };
  window.__pressroom = state;

  function setStatus(name, text) {
    state.status = name;
    var el = document.getElementById("status");
    el.className = "status " + name;
    el.textContent = text;
  }

  function onQueue(task, kind) {
    var waiting = task.status === "PENDING" && task.availableAt && kind !== "TASK_WITHDRAWN";
    if (waiting || (task.status === "STARTED" && kind !== "TASK_WITHDRAWN")) {
      tasks.set(task.id, task);
    } else {
      tasks.delete(task.id);
    }
  }

  function minutes(since) {
    var m = Math.max(0, Math.floor((Date.now() - Date.parse(since)) / 60000));
    return m < 60 ? m + " min" : Math.floor(m / 60) + " h " + (m % 60) + " min";
  }

  function item(task, working) {
    var li = document.createElement("li");
    var since = working ? task.startedAt : task.availableAt;
    li.className = "task" + (Date.now() - Date.parse(since) > 3600000 ? " old" : "");
    li.dataset.taskId = task.id;
    [["order", task.workOrder.orderNumber], ["since", minutes(since)],
     ["customer", task.workOrder.customer.name],
     ["worker", working && task.pickedUpBy ? task.pickedUpBy.name : ""]]
      .forEach(function (part) {
        var span = document.createElement("span");
        span.className = part[0];
        span.textContent = part[1];
        li.appendChild(span);
      });
    return li;
  }

  function render() {
    var all = Array.from(tasks.values());
    var waiting = all.filter(function (t) { return t.status === "PENDING"; })
      .sort(function (a, b) { return Date.parse(a.availableAt) - Date.parse(b.availableAt); });
    var working = all.filter(function (t) { return t.status === "STARTED"; })
      .sort(function (a, b) { return Date.parse(a.startedAt) - Date.parse(b.startedAt); });
    document.getElementById("waiting").replaceChildren.apply(
      document.getElementById("waiting"), waiting.map(function (t) { return item(t, false); }));
    document.getElementById("working").replaceChildren.apply(
      document.getElementById("working"), working.map(function (t) { return item(t, true); }));
    document.getElementById("waiting-count").textContent = waiting.length;
    document.getElementById("working-count").textContent = working.length;
    document.getElementById("clock").textContent =
      new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  }

  function graphql(query, variables) {
    return fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer " + token },
      body: JSON.stringify({ query: query, variables: variables })
    }).then(function (response) { return response.json(); }).then(function (body) {
      if (body.errors) { throw new Error(body.errors[0].message); }
      return body.data;
    });
  }

  // The first page's snapshot cursor covers every page: later pages only read on.
  function snapshot() {
    tasks.clear();
    function page(after) {
      return graphql(SNAPSHOT, { department: department, after: after }).then(function (data) {
        if (cursor === null) { cursor = data.queue.eventCursor; }
        data.queue.edges.forEach(function (edge) { onQueue(edge.node, "SNAPSHOT"); });
        if (data.queue.pageInfo.hasNextPage) { return page(data.queue.pageInfo.endCursor); }
      });
    }
    return page(null).then(render);
  }

  function reconnect(why, status) {
    socket = null;
    setStatus(status || "reconnecting", why);
    var delay = Math.min(10000, 500 * Math.pow(2, retries++));
    setTimeout(connect, status === "revoked" ? 30000 : delay);
  }

  function connect() {
    var ready = cursor === null ? snapshot() : Promise.resolve();
    ready.then(subscribe, function (error) {
      var revoked = /token|Sign in|revoked/i.test(error.message);
      reconnect(revoked ? "Display token rejected" : "Reconnecting…",
                revoked ? "revoked" : "reconnecting");
    });
  }

  function subscribe() {
    var ws = new WebSocket(socketUrl, "graphql-transport-ws");
    socket = ws;
    ws.onopen = function () {
      ws.send(JSON.stringify({ type: "connection_init",
                               payload: { authorization: "Bearer " + token } }));
    };
    ws.onmessage = function (message) {
      var msg = JSON.parse(message.data);
      if (msg.type === "connection_ack") {
        ws.send(JSON.stringify({ id: "queue", type: "subscribe", payload: {
          query: EVENTS, variables: { department: department, after: cursor } } }));
        retries = 0;
        state.connects += 1;
        setStatus("live", "Live");
      } else if (msg.type === "ping") {
        ws.send(JSON.stringify({ type: "pong" }));
      } else if (msg.type === "next" && msg.payload.data) {
        var event = msg.payload.data.queueEvents;
        onQueue(event.task, event.kind);
        cursor = event.cursor;
        state.received += 1;
        render();
      } else if (msg.type === "error" || msg.type === "complete") {
        var resume = msg.payload && msg.payload[0] && msg.payload[0].extensions &&
                     msg.payload[0].extensions.resumeAfter;
        if (resume) { cursor = resume; }
        ws.close();
      }
    };
    ws.onclose = function (event) {
      if (socket !== ws) { return; }
      if (event.code === 4403) {
        reconnect("Display token revoked", "revoked");
      } else {
        reconnect("Reconnecting…");
      }
    };
  }

  state.drop = function () { if (socket) { socket.close(); } };
  document.getElementById("title").textContent = department.charAt(0).toUpperCase() +
    department.slice(1) + " queue";
  setInterval(render, 30000);
  connect();
})();
