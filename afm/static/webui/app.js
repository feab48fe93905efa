// AFM chat page: a client of this server's public API only (/v1/models,
// /v1/chat/completions streamed, /v1/chat/completions/{request_id}/cancel).
// Model output reaches the page through textContent / createTextNode only (see markdown.js).

import { renderMarkdown } from "./markdown.js";

const STORE_KEY = "afm.webui.conversations.v1";
const SETTINGS_KEY = "afm.webui.settings.v1";
const API_KEY = "afm.webui.apiKey"; // sessionStorage: gone when the tab closes

const $ = (id) => document.getElementById(id);
const ui = {
  model: $("model"), newChat: $("new-chat"), chatList: $("chat-list"), messages: $("messages"),
  composer: $("composer"), prompt: $("prompt"), send: $("send"), stop: $("stop"),
  status: $("status"), settingsForm: $("settings-form"), settingsError: $("settings-error"),
  chats: $("chats"), settings: $("settings"), toggleChats: $("toggle-chats"),
  toggleSettings: $("toggle-settings"), apiKey: $("api_key"), toolChoice: $("tool_choice"),
};
const SETTING_FIELDS = ["system", "temperature", "top_p", "max_tokens", "seed", "thinking",
  "schema", "tools", "tool_choice", "extra"];

let store = loadStore();
let active = null; // the generation in flight: {requestId, controller, msg, cancelTimer}

// ------------------------------------------------------------------------------ storage

function loadStore() {
  try {
    const parsed = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
    if (parsed && Array.isArray(parsed.conversations)) return parsed;
  } catch { /* a damaged store starts afresh */ }
  return { current: null, conversations: [] };
}

function saveStore() {
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(store));
  } catch (err) {
    setStatus(`Could not save the conversation in this browser: ${err.message}`, true);
  }
}

function newId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function currentConversation() {
  let conv = store.conversations.find((c) => c.id === store.current);
  if (!conv) {
    conv = { id: newId(), title: "New chat", created: Date.now(), messages: [] };
    store.conversations.unshift(conv);
    store.current = conv.id;
  }
  return conv;
}

function loadSettings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) || "{}"); } catch { saved = {}; }
  refreshToolChoices(saved.tools || "");
  for (const name of SETTING_FIELDS) {
    if (!(name in saved)) continue;
    const field = $(name);
    if (field.type === "checkbox") field.checked = Boolean(saved[name]);
    else field.value = saved[name];
  }
  const format = saved.format || "text";
  for (const radio of ui.settingsForm.elements.format) radio.checked = radio.value === format;
  ui.apiKey.value = sessionStorage.getItem(API_KEY) || "";
}

function saveSettings() {
  const values = { format: ui.settingsForm.elements.format.value, model: ui.model.value };
  for (const name of SETTING_FIELDS) {
    const field = $(name);
    values[name] = field.type === "checkbox" ? field.checked : field.value;
  }
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(values));
  sessionStorage.setItem(API_KEY, ui.apiKey.value);
}

// ------------------------------------------------------------------------------ HTTP

function headers(extra = {}) {
  const out = { ...extra };
  const key = ui.apiKey.value.trim();
  if (key) out.Authorization = `Bearer ${key}`;
  return out;
}

async function errorMessage(res) {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json();
    if (body && body.error && body.error.message) message = `${res.status}: ${body.error.message}`;
  } catch { /* not JSON */ }
  if (res.status === 401) {
    openDrawer(ui.settings, ui.toggleSettings, true);
    ui.apiKey.classList.add("needed");
    ui.apiKey.focus();
    message = "This server asks for an API key (401): enter it in Settings, then send again.";
  }
  return message;
}

async function loadModels() {
  const wanted = JSON.parse(localStorage.getItem(SETTINGS_KEY) || "{}").model;
  try {
    const res = await fetch("v1/models", { headers: headers() });
    if (!res.ok) { setStatus(await errorMessage(res), true); return; }
    const list = (await res.json()).data || [];
    const chat = list.filter((m) => !m.type || m.type === "chat");
    ui.model.replaceChildren(...chat.map((m) => {
      const option = document.createElement("option");
      option.value = m.id;
      option.textContent = m.loaded === false ? `${m.id} (loads on first use)` : m.id;
      return option;
    }));
    if (chat.some((m) => m.id === wanted)) ui.model.value = wanted;
    if (!chat.length) setStatus("This server lists no chat model.", true);
  } catch (err) {
    setStatus(`Could not list models: ${err.message}`, true);
  }
}

// ------------------------------------------------------------------------------ requests

function parseJsonField(name, label, check) {
  const text = $(name).value.trim();
  if (!text) return undefined;
  let value;
  try { value = JSON.parse(text); } catch (err) { throw new Error(`${label}: not valid JSON (${err.message})`); }
  const problem = check(value);
  if (problem) throw new Error(`${label}: ${problem}`);
  return value;
}

function numberField(name, integer) {
  const text = $(name).value.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new Error(`${name}: not a${integer ? "n integer" : " number"}`);
  }
  return value;
}

function apiMessages(conv) {
  const out = [];
  const system = $("system").value.trim();
  if (system) out.push({ role: "system", content: system });
  for (const m of conv.messages) {
    if (m.role === "user") out.push({ role: "user", content: m.content });
    else if (m.role === "tool") out.push({ role: "tool", tool_call_id: m.tool_call_id, content: m.content });
    else if (m.role === "assistant") {
      const calls = (m.tool_calls || []).filter(Boolean);
      if (!m.content && !calls.length) continue;
      const msg = { role: "assistant", content: m.content || null };
      if (calls.length) {
        msg.tool_calls = calls.map((c) => ({
          id: c.id, type: "function", function: { name: c.name, arguments: c.arguments },
        }));
      }
      out.push(msg);
    }
  }
  return out;
}

/** The request body from the settings panel; throws with a readable message. */
function requestBody(conv) {
  const body = { model: ui.model.value || undefined, messages: apiMessages(conv), stream: true,
    stream_options: { include_usage: true } };
  const numbers = { temperature: false, top_p: false, max_tokens: true, seed: true };
  for (const [name, integer] of Object.entries(numbers)) {
    const value = numberField(name, integer);
    if (value !== undefined) body[name] = value;
  }
  if (!$("thinking").checked) body.chat_template_kwargs = { enable_thinking: false };
  const tools = parseJsonField("tools", "Tool definitions", (v) => (
    Array.isArray(v) ? null : "expected a JSON array of tools"));
  if (tools && tools.length) {
    body.tools = tools;
    const choice = ui.toolChoice.value;
    body.tool_choice = ["auto", "none", "required"].includes(choice)
      ? choice : { type: "function", function: { name: choice } };
  }
  if (ui.settingsForm.elements.format.value === "json_schema") {
    const schema = parseJsonField("schema", "Schema", (v) => (
      v && typeof v === "object" && !Array.isArray(v) ? null : "expected a JSON object"));
    body.response_format = schema
      ? { type: "json_schema", json_schema: { name: "webui_schema", schema, strict: true } }
      : { type: "json_object" };
  }
  const extra = parseJsonField("extra", "Extra request fields", (v) => (
    v && typeof v === "object" && !Array.isArray(v) ? null : "expected a JSON object"));
  return { ...body, ...(extra || {}) };
}

async function generate(conv) {
  let body;
  try {
    body = requestBody(conv);
    ui.settingsError.textContent = "";
  } catch (err) {
    ui.settingsError.textContent = err.message;
    openDrawer(ui.settings, ui.toggleSettings, true);
    setStatus(err.message, true);
    return;
  }
  const requestId = `webui-${newId()}`;
  const msg = { role: "assistant", content: "", reasoning: "", tool_calls: [], model: body.model,
    requestId, format: body.response_format ? "json" : "text", streaming: true };
  conv.messages.push(msg);
  const node = appendMessage(msg);
  const controller = new AbortController();
  active = { requestId, controller, msg, node };
  setBusy(true);
  setStatus("");
  const started = performance.now();
  try {
    const res = await fetch("v1/chat/completions", {
      method: "POST", signal: controller.signal, body: JSON.stringify(body),
      headers: headers({ "Content-Type": "application/json", "X-Request-ID": requestId }),
    });
    // the id to cancel by is the one the server answers with (it honours ours)
    active.requestId = msg.requestId = res.headers.get("X-Request-ID") || requestId;
    if (!res.ok) {
      msg.error = await errorMessage(res);
    } else {
      await readStream(res, msg, node, started);
    }
  } catch (err) {
    if (err.name === "AbortError") msg.finish = msg.finish || "cancelled";
    else msg.error = `Connection failed: ${err.message}`;
  } finally {
    clearTimeout(active.cancelTimer);
    active = null;
    msg.streaming = false;
    if (msg.format === "json" && msg.content) {
      try { msg.parsed = JSON.parse(msg.content); } catch (err) { msg.parseError = err.message; }
    }
    if (msg.error) setStatus(msg.error, true);
    renderMessage(msg, node);
    setBusy(false);
    saveStore();
  }
}

async function readStream(res, msg, node, started) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, "");
      buffer = buffer.slice(end + 1);
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") return;
      let chunk;
      try { chunk = JSON.parse(data); } catch { continue; }
      applyChunk(msg, chunk, started);
      scheduleRender(msg, node);
    }
  }
}

function applyChunk(msg, chunk, started) {
  if (chunk.model) msg.model = chunk.model;
  if (chunk.usage) msg.usage = chunk.usage;
  if (chunk.timings) msg.timings = chunk.timings;
  if (chunk.error) msg.error = chunk.error.message || "Generation failed";
  for (const choice of chunk.choices || []) {
    const delta = choice.delta || {};
    const text = (delta.content || "") + (delta.reasoning_content || "");
    if (text && msg.firstTokenMs === undefined) msg.firstTokenMs = performance.now() - started;
    if (delta.content) msg.content += delta.content;
    if (delta.reasoning_content) msg.reasoning += delta.reasoning_content;
    for (const call of delta.tool_calls || []) {
      const fn = call.function || {};
      if (call.id) {
        msg.tool_calls[call.index] = { id: call.id, name: fn.name || "", arguments: fn.arguments || "" };
      } else if (msg.tool_calls[call.index]) {
        msg.tool_calls[call.index].arguments += fn.arguments || "";
      }
    }
    if (choice.finish_reason) msg.finish = choice.finish_reason;
  }
}

async function stop() {
  if (!active) return;
  const current = active;
  setStatus("Stopping…");
  ui.stop.disabled = true;
  let cancelled = false;
  try {
    const res = await fetch(`v1/chat/completions/${encodeURIComponent(current.requestId)}/cancel`,
      { method: "POST", headers: headers() });
    cancelled = res.ok;
  } catch { /* fall back to dropping the connection */ }
  // a cancelled stream ends with finish_reason "cancelled"; if it does not end soon (or the
  // server did not know the id yet), closing the connection frees the slot as well
  if (active === current) {
    current.cancelTimer = setTimeout(() => current.controller.abort(), cancelled ? 3000 : 0);
  }
}

// ------------------------------------------------------------------------------ rendering

function setStatus(text, isError = false) {
  ui.status.textContent = text;
  ui.status.classList.toggle("error", isError);
}

function setBusy(busy) {
  ui.send.hidden = busy;
  ui.stop.hidden = !busy;
  ui.stop.disabled = false;
  ui.messages.setAttribute("aria-busy", String(busy));
  if (!busy) setStatus(ui.status.classList.contains("error") ? ui.status.textContent : "");
}

const pending = new Map();
function scheduleRender(msg, node) {
  if (pending.has(node)) return;
  pending.set(node, requestAnimationFrame(() => {
    pending.delete(node);
    renderMessage(msg, node);
    keepScrolled();
  }));
}

function keepScrolled() {
  const list = ui.messages;
  if (list.scrollHeight - list.scrollTop - list.clientHeight < 160) list.scrollTop = list.scrollHeight;
}

function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderConversation() {
  const conv = currentConversation();
  ui.messages.replaceChildren();
  for (const msg of conv.messages) appendMessage(msg);
  ui.messages.scrollTop = ui.messages.scrollHeight;
  renderChatList();
}

function appendMessage(msg) {
  const node = make("li", `msg ${msg.role}`);
  ui.messages.appendChild(node);
  renderMessage(msg, node);
  keepScrolled();
  return node;
}

const ROLE_LABEL = { user: "You", assistant: "Assistant", tool: "Tool result" };

function renderMessage(msg, node) {
  const wasOpen = node.querySelector("details.reasoning")?.open;
  node.replaceChildren();
  node.classList.toggle("streaming", Boolean(msg.streaming));
  const label = msg.role === "assistant" && msg.model ? `Assistant · ${msg.model}` : ROLE_LABEL[msg.role];
  node.appendChild(make("div", "who", label));

  if (msg.role === "user") {
    node.appendChild(make("div", "content plain", msg.content));
    return;
  }
  if (msg.role === "tool") {
    node.appendChild(make("div", "who-detail", `for ${msg.name || msg.tool_call_id}`));
    node.appendChild(make("pre", "content plain", msg.content));
    return;
  }
  if (msg.reasoning) {
    const details = make("details", "reasoning");
    details.open = wasOpen ?? (msg.streaming && !msg.content);
    details.appendChild(make("summary", "", msg.streaming && !msg.content ? "Reasoning…" : "Reasoning"));
    details.appendChild(make("div", "reasoning-text", msg.reasoning));
    node.appendChild(details);
  }
  const content = renderMarkdown(msg.content || "");
  content.classList.add("content");
  node.appendChild(content);
  if (msg.parsed !== undefined) {
    const figure = make("figure", "parsed");
    figure.appendChild(make("figcaption", "", "Parsed JSON"));
    figure.appendChild(make("pre", "parsed-json", JSON.stringify(msg.parsed, null, 2)));
    node.appendChild(figure);
  } else if (msg.parseError && !msg.streaming) {
    node.appendChild(make("p", "error", `The answer is not valid JSON: ${msg.parseError}`));
  }
  const calls = (msg.tool_calls || []).filter(Boolean);
  for (const call of calls) node.appendChild(renderToolCall(msg, call));
  if (msg.error) node.appendChild(make("p", "error", msg.error));
  if (msg.streaming && !msg.content && !msg.reasoning && !calls.length) {
    node.appendChild(make("p", "waiting", "Waiting for the first token…"));
  }
  if (!msg.streaming) node.appendChild(renderUsage(msg));
}

function prettyArguments(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}

function renderToolCall(msg, call) {
  const box = make("section", "tool-call");
  box.setAttribute("aria-label", `Tool call ${call.name}`);
  const head = make("div", "tool-head");
  head.appendChild(make("span", "tool-badge", "tool call"));
  head.appendChild(make("code", "tool-name", call.name));
  head.appendChild(make("span", "tool-id", call.id));
  box.appendChild(head);
  box.appendChild(make("pre", "tool-args", prettyArguments(call.arguments)));
  const conv = currentConversation();
  const answered = conv.messages.some((m) => m.role === "tool" && m.tool_call_id === call.id);
  if (!msg.streaming && !answered && conv.messages.includes(msg) && !active) {
    const form = make("form", "tool-result");
    const id = `result-${call.id}`;
    const label = make("label", "", `Result of ${call.name}`);
    label.htmlFor = id;
    const input = make("textarea");
    input.id = id;
    input.rows = 1;
    const button = make("button", "", "Send result");
    button.type = "submit";
    form.append(label, input, button);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      conv.messages.push({ role: "tool", tool_call_id: call.id, name: call.name, content: input.value });
      saveStore();
      renderConversation();
      const open = msg.tool_calls.filter(Boolean).some((c) => !conv.messages.some(
        (m) => m.role === "tool" && m.tool_call_id === c.id));
      if (!open) generate(conv);
    });
    box.appendChild(form);
  }
  return box;
}

function renderUsage(msg) {
  const line = make("p", "usage");
  const parts = [];
  const usage = msg.usage;
  if (usage) {
    const cached = usage.prompt_tokens_details?.cached_tokens ?? msg.timings?.cache_n ?? 0;
    parts.push(`${usage.prompt_tokens} prompt tokens (${cached} cached)`);
    parts.push(`${usage.completion_tokens} completion tokens`);
    const rate = msg.timings?.predicted_per_second ?? usage.completion_tokens_per_second;
    if (rate) parts.push(`${rate.toFixed(1)} tok/s`);
    line.dataset.promptTokens = usage.prompt_tokens;
    line.dataset.cachedTokens = cached;
    line.dataset.completionTokens = usage.completion_tokens;
  }
  if (msg.firstTokenMs !== undefined) parts.push(`first token ${Math.round(msg.firstTokenMs)} ms`);
  if (msg.finish) {
    parts.push(`finish: ${msg.finish}`);
    line.dataset.finish = msg.finish;
  }
  line.textContent = parts.join(" · ");
  return line;
}

function renderChatList() {
  ui.chatList.replaceChildren(...store.conversations.map((conv) => {
    const item = make("li");
    const open = make("button", "chat-link", conv.title || "New chat");
    open.type = "button";
    if (conv.id === store.current) open.setAttribute("aria-current", "true");
    open.addEventListener("click", () => {
      if (active) return;
      store.current = conv.id;
      saveStore();
      renderConversation();
      openDrawer(ui.chats, ui.toggleChats, false);
    });
    const remove = make("button", "delete", "×");
    remove.type = "button";
    remove.setAttribute("aria-label", `Delete conversation: ${conv.title || "New chat"}`);
    remove.addEventListener("click", () => {
      if (active && conv.id === store.current) return;
      store.conversations = store.conversations.filter((c) => c.id !== conv.id);
      if (store.current === conv.id) store.current = store.conversations[0]?.id || null;
      saveStore();
      renderConversation();
    });
    item.append(open, remove);
    return item;
  }));
}

function refreshToolChoices(text) {
  const selected = ui.toolChoice.value;
  let names = [];
  try {
    const tools = JSON.parse(text || "[]");
    if (Array.isArray(tools)) names = tools.map((t) => t?.function?.name).filter(Boolean);
  } catch { /* keep the fixed choices while the JSON is being typed */ }
  const options = ["auto", "none", "required", ...names].map((name) => {
    const option = make("option", "", ["auto", "none", "required"].includes(name) ? name : `function: ${name}`);
    option.value = name;
    return option;
  });
  ui.toolChoice.replaceChildren(...options);
  if ([...ui.toolChoice.options].some((o) => o.value === selected)) ui.toolChoice.value = selected;
}

function openDrawer(drawer, button, open) {
  drawer.classList.toggle("open", open);
  button.setAttribute("aria-expanded", String(open));
}

// ------------------------------------------------------------------------------ events

function send() {
  if (active) return;
  const text = ui.prompt.value.trim();
  if (!text) return;
  const conv = currentConversation();
  if (!conv.messages.length) conv.title = text.slice(0, 60);
  conv.messages.push({ role: "user", content: text });
  ui.prompt.value = "";
  saveStore();
  renderConversation();
  generate(conv);
}

ui.composer.addEventListener("submit", (event) => { event.preventDefault(); send(); });
ui.prompt.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  if (active) { event.preventDefault(); stop(); return; }
  openDrawer(ui.chats, ui.toggleChats, false);
  openDrawer(ui.settings, ui.toggleSettings, false);
});
ui.stop.addEventListener("click", stop);
ui.newChat.addEventListener("click", () => {
  if (active) return;
  store.current = null;
  currentConversation();
  saveStore();
  renderConversation();
  ui.prompt.focus();
});
ui.toggleChats.addEventListener("click", () => openDrawer(ui.chats, ui.toggleChats,
  !ui.chats.classList.contains("open")));
ui.toggleSettings.addEventListener("click", () => openDrawer(ui.settings, ui.toggleSettings,
  !ui.settings.classList.contains("open")));
ui.settingsForm.addEventListener("input", (event) => {
  if (event.target.id === "tools") refreshToolChoices(event.target.value);
  if (event.target.id === "api_key") ui.apiKey.classList.remove("needed");
  saveSettings();
});
ui.settingsForm.addEventListener("change", (event) => {
  saveSettings();
  if (event.target.id === "api_key") loadModels(); // the list may have needed the key
});
ui.settingsForm.addEventListener("submit", (event) => event.preventDefault());
ui.model.addEventListener("change", saveSettings);

loadSettings();
renderConversation();
loadModels().then(() => document.body.setAttribute("data-ready", "true"));
