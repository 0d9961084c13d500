// abstain web page: streams POST /v1/workspaces/{ws}/ask/stream (Server-Sent Events over fetch,
// since EventSource cannot POST or send a bearer key) and renders each event as it arrives.
// Every piece of server text goes through textContent; nothing is parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const store = window.sessionStorage;

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function reset() {
  $("result").hidden = false;
  $("result").dataset.state = "streaming";
  for (const id of ["triage", "confidence", "read-as", "answer", "refusal-reason",
                    "refusal-message", "retraction", "error", "missing"]) $(id).textContent = "";
  $("triage").className = "badge";
  $("answer").className = "answer";
  $("citations").replaceChildren();
  $("suggestions").replaceChildren(el("span", {}, "Did you mean:"));
  for (const id of ["read-as", "refusal", "retraction", "error", "suggestions", "missing"]) {
    $(id).hidden = true;
  }
  $("status").textContent = "asking…";
}

// "text [1][2]" -> text nodes and superscript links to the numbered citations.
function appendCited(parent, text) {
  for (const part of text.split(/(\[\d+\])/)) {
    const m = /^\[(\d+)\]$/.exec(part);
    if (m) {
      const sup = el("sup");
      sup.append(el("a", { href: "#cite-" + m[1] }, part));
      parent.append(sup);
    } else if (part) {
      parent.append(document.createTextNode(part));
    }
  }
}

// A source is a link only where the server made one (abstain serve --source-url: its `url`),
// never from the source's own text, and only to http(s).
function sourceNode(source, url) {
  if (url && /^https?:\/\//i.test(url)) {
    return el("a", { class: "source", href: url, target: "_blank", rel: "noopener noreferrer" },
              source);
  }
  return el("span", { class: "source" }, source);
}

// One list item per cited source; a second quote of the same source is added to it.
function addCitation(c) {
  const known = document.getElementById("cite-" + c.n);
  if (known) {
    const quotes = [...known.querySelectorAll("blockquote")].map((q) => q.textContent);
    if (c.quote && !quotes.includes(c.quote)) known.append(el("blockquote", {}, c.quote));
    return;
  }
  const li = el("li", { id: "cite-" + c.n, value: String(c.n) });
  li.append(el("strong", {}, c.title || c.source), " ", sourceNode(c.source, c.url));
  if (c.quote) li.append(el("blockquote", {}, c.quote));
  const items = [...$("citations").children];
  const after = items.find((x) => Number(x.value) > c.n);
  $("citations").insertBefore(li, after || null);
}

const handlers = {
  meta(d, ctx) {
    ctx.evidence = d.evidence || [];
    $("triage").textContent = d.triage.replace("_", " ");
    $("triage").classList.add(d.triage);
    $("confidence").textContent = `confidence ${d.display_confidence}/100`;
    if (d.read_as) {  // a misspelt word put right: say what was answered
      $("read-as").hidden = false;
      $("read-as").textContent = "Read as: " + d.read_as;
    }
    $("status").textContent = "checking…";
  },
  sentence(d, ctx) {
    // a quoted code block comes fenced, its markers after it: shown as code, lines kept
    const block = /^```\n([\s\S]*)\n```\n?((?:\[\d+\])*)$/.exec(d.text);
    let quote;
    if (block) {
      const pre = el("pre");
      pre.append(el("code", {}, block[1]));
      $("answer").append(pre);
      appendCited($("answer"), block[2]);
      quote = block[1];
    } else {
      if ($("answer").childNodes.length) $("answer").append(" ");
      appendCited($("answer"), d.text);
      quote = d.text.replace(/\s*(\[\d+\])+\s*$/, "");
    }
    // markers are numbered by first use; `sources` maps each to its evidence number
    for (const s of d.sources || []) {
      const ev = ctx.evidence[s.evidence_n - 1] || {};
      addCitation({ n: s.n, source: ev.source || "", url: ev.url || "", title: ev.title || "",
                    quote });
    }
    $("status").textContent = "streaming…";
  },
  refusal(d) {
    $("refusal").hidden = false;
    $("refusal-reason").textContent = d.reason;
    $("refusal-message").textContent = d.message;
    if (d.missing && d.missing.length) {
      $("missing").hidden = false;
      $("missing").textContent = (d.reason === "unknown_entity"  // absent from every document
        ? "Not found in the documents: " : "Not in the passages found for this question: ")
        + d.missing.join(", ");
    }
    for (const s of d.suggestions || []) {
      $("suggestions").hidden = false;
      const b = el("button", { type: "button" }, s);
      b.addEventListener("click", () => {  // swap the missing term for the suggestion
        const q = $("question").value, miss = (d.missing || []).find((m) => q.includes(m));
        $("question").value = miss ? q.replace(miss, s) : s;
      });
      $("suggestions").append(b);
    }
  },
  retraction(d) {
    $("answer").classList.add("retracted");
    $("retraction").hidden = false;
    $("retraction").textContent = "Withdrawn: " + (d.message || d.reason || "a later check failed");
  },
  done(d) {
    if (d.answered) {
      $("citations").replaceChildren();
      for (const c of d.citations) addCitation(c);
    }
    const ms = d.timings_ms && d.timings_ms.total_ms;
    $("status").textContent = `${d.answered ? "answered" : "refused"} · llm_called=${d.llm_called}`
      + (ms !== undefined ? ` · ${Math.round(ms)} ms` : "");
    $("result").dataset.state = d.answered ? "answered" : "refused";
  },
  error(d) { showError(d.error); },
};

function showError(err) {
  $("error").hidden = false;
  $("error").textContent = `${err.code}: ${err.message}`;
  $("status").textContent = "";
  $("result").dataset.state = "error";
}

async function ask(event) {
  event.preventDefault();
  if ($("workspace").value.trim() === workspaceAtOpen) {
    await loadWorkspaces();  // a key pasted and asked at once: no change event has run yet
  }
  const key = $("api-key").value.trim();
  const ws = $("workspace").value.trim();
  store.setItem("abstain.key", key);
  store.setItem("abstain.workspace", ws);
  reset();
  $("ask").disabled = true;
  try {
    const resp = await fetch(`/v1/workspaces/${encodeURIComponent(ws)}/ask/stream`, {
      method: "POST",
      headers: { "Authorization": "Bearer " + key, "Content-Type": "application/json",
                 "Accept": "text/event-stream" },
      body: JSON.stringify({ question: $("question").value }),
    });
    if (!resp.ok) {
      const body = await resp.json().catch(() => null);
      showError((body && body.error) || { code: "http_" + resp.status, message: resp.statusText });
      return;
    }
    await readEvents(resp.body);
  } catch (e) {
    showError({ code: "network_error", message: String(e) });
  } finally {
    $("ask").disabled = false;
  }
}

async function readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const ctx = { evidence: [] };
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let end;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let kind = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) kind = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (handlers[kind]) handlers[kind](JSON.parse(data || "{}"), ctx);
    }
  }
}

// The workspaces the key may ask (GET /v1/models), offered in the workspace field; when the
// field names one the key may not ask (the page's "default" for a key of another workspace)
// and still holds what the page opened with (not typed into, not cleared), it is set to the
// first the key may. A key the server refuses changes nothing: asking shows why.
let workspaceAtOpen = null;

async function loadWorkspaces() {
  const key = $("api-key").value.trim();
  if (!key) return;
  try {
    const resp = await fetch("/v1/models", { headers: { "Authorization": "Bearer " + key } });
    if (!resp.ok) return;
    const names = ((await resp.json()).data || []).map((m) => m.id);
    $("workspaces").replaceChildren(...names.map((name) => {
      const option = document.createElement("option");
      option.value = name;
      return option;
    }));
    const now = $("workspace").value.trim();
    if (names.length && now === workspaceAtOpen && !names.includes(now)) {
      $("workspace").value = names[0];
    }
  } catch (e) {
    // offline or refused: the field stays as typed
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("api-key").value = store.getItem("abstain.key") || "";
  $("workspace").value = store.getItem("abstain.workspace") || $("workspace").value;
  $("api-key").addEventListener("change", loadWorkspaces);
  workspaceAtOpen = $("workspace").value.trim();
  $("ask-form").addEventListener("submit", ask);
  loadWorkspaces();
});
