// Strata's read-only page: polls /ui/api/state and draws it. Every value
// from the server is put into the page as text (textContent), never as
// HTML: job names and comments are the users' own strings.
"use strict";

const POLL_MS = 2000;
let last = null;
let openJob = null;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

function fill(id, nodes) { document.getElementById(id).replaceChildren(...nodes); }
function tbody(id, rows) { document.querySelector("#" + id + " tbody").replaceChildren(...rows); }
function pad(n) { return String(n).padStart(2, "0"); }
function hms(s) { s = Math.max(0, Math.round(s)); return pad(Math.floor(s / 3600)) + ":" + pad(Math.floor(s / 60) % 60) + ":" + pad(s % 60); }
function when(t) { if (!t) return ""; const d = new Date(t * 1000); return d.toLocaleDateString() + " " + d.toLocaleTimeString(); }
// tracejob's stamp: MM/DD/YYYY HH:MM:SS
function stamp(t) { const d = new Date(t * 1000); return pad(d.getMonth() + 1) + "/" + pad(d.getDate()) + "/" + d.getFullYear() + " " + pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()); }
// The first state name gives the tile's colour ("down,offline" is down).
function stateClass(s) { return "st-" + s.split(",")[0]; }

async function poll() {
  try {
    const r = await fetch("/ui/api/state", { credentials: "same-origin", cache: "no-store" });
    if (!r.ok) throw new Error((await r.json()).message || r.statusText);
    last = await r.json();
    draw(last);
    document.getElementById("status").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("status").textContent = "not updated: " + e.message;
  }
  setTimeout(poll, POLL_MS);
}

function draw(o) {
  document.getElementById("server").textContent = o.server + (o.leader ? "" : " (follower)");
  drawWho(o);
  drawNodes(o);
  drawQueue(o);
  drawResv(o);
  drawProv(o);
}

function drawWho(o) {
  const who = document.getElementById("who");
  if (!o.viewer) return;
  const scope = o.see_all ? "all jobs" : "your jobs";
  who.replaceChildren("logged in as " + o.viewer.user + "@" + o.viewer.host + " (" + scope + ", until " + new Date(o.session_expires * 1000).toLocaleTimeString() + ") ",
    el("button", { type: "button", onclick: async () => { await fetch("/ui/logout", { method: "POST", credentials: "same-origin" }); location.reload(); } }, "log out"));
}

const LEGEND = [["free", "--free"], ["job-busy", "--busy"], ["provisioning", "--prov"], ["wait-provisioning", "--waitprov"], ["resv-exclusive", "--resv"], ["down", "--down"], ["offline", "--offline"]];

function drawNodes(o) {
  fill("legend", LEGEND.map(([n, c]) => el("span", { style: "--c: var(" + c + ")" }, n)));
  const by = {};
  for (const n of o.nodes) by[n.state] = (by[n.state] || 0) + 1;
  document.getElementById("node-summary").textContent = o.nodes.length + " vnodes: " + Object.entries(by).map(([s, n]) => n + " " + s).join(", ");
  fill("nodemap", o.nodes.map(n => {
    const t = el("div", { class: "tile " + stateClass(n.state), "data-node": n.name, "data-state": n.state, "data-aoe": n.current_aoe || "", title: n.comment || n.state },
      el("div", { class: "name" }, n.name),
      el("div", { class: "state" }, n.state),
      el("div", { class: "aoe" }, "AOE " + (n.current_aoe || "–")),
      el("div", { class: "cpus" }, n.ncpus_assigned + "/" + n.ncpus + " cpus" + (n.jobs ? " · " + n.jobs.join(" ") : "")));
    if (n.provision) {
      const p = n.provision;
      let frac = 0, text = "→ " + p.aoe + " " + p.state;
      if (p.started && p.estimate_secs > 0) {
        const el2 = o.now - p.started;
        frac = Math.min(1, el2 / p.estimate_secs);
        text += " " + hms(el2) + " / ~" + hms(p.estimate_secs);
      } else if (p.queued) {
        text += " waiting " + hms(o.now - p.queued);
      }
      t.append(el("div", { class: "prov", "data-prov-aoe": p.aoe, "data-prov-state": p.state }, text));
      t.append(el("div", { class: "bar", style: "width:" + Math.round(frac * 100) + "%" }));
    }
    return t;
  }));
}

function drawQueue(o) {
  fill("counts", Object.entries(o.counts || {}).map(([s, n]) => el("span", { class: "count", "data-count-state": s }, s + ": " + n))
    .concat((o.queues || []).map(q => el("span", { class: "count" }, "queue " + q.name + ": " + q.total_jobs))));
  const jobs = o.jobs || [];
  tbody("jobs", jobs.map(j => el("tr", { "data-job": j.id, "data-state": j.state, onclick: () => showJob(j.id) },
    el("td", {}, j.id), el("td", {}, j.name), el("td", {}, j.user), el("td", {}, j.queue), el("td", {}, j.state),
    el("td", {}, j.ncpus || ""), el("td", {}, j.start ? (j.estimated ? "est. " : "") + when(j.start) : ""), el("td", {}, j.comment || ""))));
  const note = document.getElementById("jobs-note");
  if (!o.viewer) note.textContent = "Jobs are shown after `strata web login`.";
  else if (o.jobs_omitted) note.textContent = o.jobs_omitted + " more jobs not listed.";
  else note.textContent = jobs.length ? "" : "No jobs.";
  drawTimeline("timeline", o.now, jobs.filter(j => j.start).slice(0, 40).map(j => ({
    label: j.id + " " + j.name, start: j.start, end: j.start + (j.walltime || 3600), cls: j.estimated ? "est" : "run" })));
}

// drawTimeline draws spans on lanes over [min start, max end], with now.
function drawTimeline(id, now, spans) {
  if (!spans.length) { fill(id, []); return; }
  let lo = Math.min(now, ...spans.map(s => s.start)), hi = Math.max(now + 60, ...spans.map(s => s.end));
  const w = hi - lo, pct = t => ((t - lo) / w * 100).toFixed(2) + "%";
  const axis = el("div", { class: "axis" });
  for (let i = 0; i <= 4; i++) { const t = lo + w * i / 4; axis.append(el("span", { style: "left:" + pct(t) + ";transform:translateX(" + (-25 * i) + "%)" }, when(t))); }
  const box = el("div", { class: "timebox" }, axis, ...spans.map(s => el("div", { class: "lane" },
    el("div", { class: "span " + s.cls, style: "left:" + pct(s.start) + ";width:" + (((s.end - s.start) / w) * 100).toFixed(2) + "%", title: s.label + " " + when(s.start) + " – " + when(s.end) }, s.label))));
  box.append(el("div", { class: "now", style: "left:" + pct(now) }));
  fill(id, [box]);
}

function drawResv(o) {
  const rs = o.reservations || [];
  if (!rs.length) { fill("calendar", [el("div", { class: "muted" }, "No reservations.")]); return; }
  drawTimeline("calendar", o.now, rs.map(r => ({ label: r.id + (r.name ? " " + r.name : "") + " " + r.state + " (" + r.vnodes + " vnodes" + (r.aoe ? ", " + r.aoe : "") + ")", start: r.start, end: r.end, cls: "resv" })));
}

function drawProv(o) {
  const p = o.provision;
  if (!p) { document.getElementById("prov-summary").textContent = "no provision hook"; return; }
  document.getElementById("prov-summary").textContent = (p.hook ? "hook " + p.hook + " (" + p.mode + "), " : "") +
    p.running + " running, " + p.waiting + " waiting, max_concurrent_provision " + p.max_concurrent_provision +
    (p.suggested_max_concurrent_provision ? ", suggested " + p.suggested_max_concurrent_provision : "");
  tbody("prov-ops", (p.operations || []).map(op => el("tr", { "data-prov-host": op.host },
    el("td", {}, op.host), el("td", {}, op.aoe), el("td", {}, op.state), el("td", {}, op.job_id || ""),
    el("td", {}, hms((op.started || o.now) - op.queued)), el("td", {}, op.started ? hms(o.now - op.started) : ""))));
  tbody("prov-aoes", (p.aoes || []).map(a => el("tr", { "data-aoe": a.aoe },
    el("td", {}, a.aoe), el("td", {}, hms(a.estimate_secs)), el("td", {}, a.learned ? "yes" : "default"),
    el("td", {}, a.successes), el("td", {}, a.failures), el("td", {}, hms(a.mean_wait_secs)))));
  tbody("prov-hosts", (p.hosts || []).map(s => el("tr", {},
    el("td", {}, s.host), el("td", {}, s.aoe), el("td", {}, s.successes), el("td", {}, s.failures),
    el("td", {}, hms(s.mean_secs)), el("td", {}, hms(s.last_secs)), el("td", {}, when(s.last_ended)))));
}

// flatten turns the job status into qstat -f's "name = value" lines.
function flatten(prefix, v, out) {
  if (v === null || v === undefined || v === "") return;
  if (Array.isArray(v)) { if (v.length) out.push(prefix + " = " + JSON.stringify(v)); return; }
  if (typeof v === "object") { for (const k of Object.keys(v).sort()) flatten(prefix ? prefix + "." + k : k, v[k], out); return; }
  out.push(prefix + " = " + v);
}

async function showJob(id) {
  openJob = id;
  const sec = document.getElementById("job-section");
  sec.hidden = false;
  document.getElementById("job-title").textContent = id;
  const r = await fetch("/ui/api/jobs/" + encodeURIComponent(id), { credentials: "same-origin", cache: "no-store" });
  const body = await r.json();
  if (!r.ok) {
    document.getElementById("job-attrs").textContent = body.message;
    document.getElementById("job-trace").textContent = "";
    return;
  }
  const j = body.job, lines = [];
  const hist = j.history || [];
  delete j.history;
  for (const k of Object.keys(j)) flatten(k, j[k], lines);
  document.getElementById("job-attrs").textContent = "Job Id: " + j.id + "\n" + lines.filter(l => !l.startsWith("id =")).map(l => "    " + l).join("\n");
  document.getElementById("job-trace").textContent = "Job: " + j.id + "\n\n" + hist.map(e => stamp(e.t) + "  S    " + e.text).join("\n");
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("job-close").addEventListener("click", () => { openJob = null; document.getElementById("job-section").hidden = true; });
  const m = location.hash.match(/^#job=(.+)$/);
  if (m) showJob(decodeURIComponent(m[1]));
  poll();
});
