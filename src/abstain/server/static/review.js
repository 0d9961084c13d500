// abstain web page, review tab: lists the workspace's query log (GET /v1/workspaces/{ws}/log)
// and labels an entry with one click (POST …/log/{id}/label). Needs an admin key.
// Server text goes through textContent only.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  function auth() {
    return { "Authorization": "Bearer " + $("api-key").value.trim(),
             "Content-Type": "application/json" };
  }

  function base() {
    return `/v1/workspaces/${encodeURIComponent($("workspace").value.trim())}/log`;
  }

  async function call(url, options) {
    const resp = await fetch(url, { ...options, headers: auth() });
    const body = await resp.json().catch(() => null);
    if (!resp.ok) {
      const err = (body && body.error) || { code: "http_" + resp.status, message: resp.statusText };
      throw new Error(`${err.code}: ${err.message}`);
    }
    return body;
  }

  function cell(text) {
    const td = document.createElement("td");
    td.textContent = text;
    return td;
  }

  function paint(tr, entry) {
    tr.className = entry.expected ? (entry.label_agrees ? "agrees" : "disagrees") : "";
    for (const b of tr.querySelectorAll("button")) {
      b.classList.toggle("chosen", b.dataset.expected === entry.expected);
    }
  }

  function row(entry) {
    const tr = document.createElement("tr");
    tr.dataset.id = String(entry.id);
    tr.append(cell(String(entry.id)),
              cell(entry.answered ? "answered" : "refused: " + entry.reason),
              cell(entry.confidence.toFixed(3)),
              cell(entry.question === null ? "sha256:" + entry.question_hash.slice(0, 12)
                                           : entry.question));
    const td = document.createElement("td");
    for (const [expected, text] of [["answer", "should answer"], ["refuse", "should refuse"]]) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.expected = expected;
      b.textContent = text;
      b.addEventListener("click", async () => {
        try {
          const updated = await call(`${base()}/${entry.id}/label`, {
            method: "POST", body: JSON.stringify({ expected }) });
          paint(tr, updated);
          $("review-status").textContent = `labelled ${entry.id}: ${expected}`;
        } catch (e) {
          $("review-status").textContent = String(e.message || e);
        }
      });
      td.append(b);
    }
    tr.append(td);
    paint(tr, entry);
    return tr;
  }

  async function load() {
    const params = new URLSearchParams({ decision: $("review-filter").value,
                                         unlabelled: String($("review-unlabelled").checked) });
    $("review-status").textContent = "loading…";
    try {
      const body = await call(`${base()}?${params}`, { method: "GET" });
      const tbody = $("review-table").querySelector("tbody");
      tbody.replaceChildren(...body.entries.map(row));
      $("review-table").hidden = body.entries.length === 0;
      $("review-status").textContent = `${body.entries.length} entries`
        + (body.enabled ? "" : " · the log is off (abstain log on --db …)");
    } catch (e) {
      $("review-status").textContent = String(e.message || e);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("review-load").addEventListener("click", load);
  });
})();
