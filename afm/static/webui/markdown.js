// A small Markdown renderer that builds DOM nodes directly: text only ever enters the page
// through createTextNode, so HTML in model output (<script>, <img onerror>) shows as text.
// Covers what chat answers use: paragraphs, headings, fenced and indented code, block quotes,
// lists, rules, tables, inline code, bold, italic, strike-through and http(s)/mailto links.

const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

function el(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

function safeHref(url) {
  try {
    const parsed = new URL(url, window.location.href);
    return SAFE_PROTOCOLS.has(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

// Inline spans, in order of precedence; each regex is sticky-searched from the cursor.
const INLINE = [
  { re: /`([^`]+)`/y, make: (m) => { const c = el("code"); c.textContent = m[1]; return c; } },
  { re: /\*\*(?=\S)([\s\S]*?\S)\*\*/y, tag: "strong" },
  { re: /__(?=\S)([\s\S]*?\S)__/y, tag: "strong" },
  { re: /~~(?=\S)([\s\S]*?\S)~~/y, tag: "del" },
  { re: /\*(?=[^\s*])([\s\S]*?[^\s*])\*/y, tag: "em" },
  { re: /\b_(?=\S)([\s\S]*?\S)_\b/y, tag: "em" },
  {
    re: /\[([^\]\n]+)\]\(([^)\s]+)\)/y,
    make: (m) => {
      const href = safeHref(m[2]);
      if (!href) return document.createTextNode(m[0]);
      const a = el("a");
      a.href = href;
      a.rel = "noopener noreferrer";
      a.target = "_blank";
      renderInline(m[1], a);
      return a;
    },
  },
];
const INLINE_START = /[`*_~[]/g;

export function renderInline(text, parent) {
  let plain = "";
  let i = 0;
  const flush = () => {
    if (plain) parent.appendChild(document.createTextNode(plain));
    plain = "";
  };
  while (i < text.length) {
    INLINE_START.lastIndex = i;
    const found = INLINE_START.exec(text);
    if (!found) break;
    plain += text.slice(i, found.index);
    i = found.index;
    let matched = false;
    for (const rule of INLINE) {
      rule.re.lastIndex = i;
      const m = rule.re.exec(text);
      if (!m) continue;
      flush();
      if (rule.make) {
        parent.appendChild(rule.make(m));
      } else {
        const node = el(rule.tag);
        renderInline(m[1], node);
        parent.appendChild(node);
      }
      i += m[0].length;
      matched = true;
      break;
    }
    if (!matched) {
      plain += text[i];
      i += 1;
    }
  }
  plain += text.slice(i);
  flush();
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const BULLET = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function splitRow(line) {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|")) row = row.slice(0, -1);
  return row.split("|").map((cell) => cell.trim());
}

function isBlockStart(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line)
    || BULLET.test(line);
}

/** Render Markdown `text` into a fresh <div class="md">. */
export function renderMarkdown(text) {
  const root = el("div", "md");
  renderBlocks(text.replace(/\r\n?/g, "\n").split("\n"), root);
  return root;
}

function renderBlocks(lines, parent) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i += 1; continue; }

    const fence = FENCE.exec(line);
    if (fence) {
      const close = new RegExp(`^ {0,3}${fence[1][0]}{${fence[1].length},}\\s*$`);
      const body = [];
      i += 1;
      while (i < lines.length && !close.test(lines[i])) body.push(lines[i++]);
      i += 1; // the closing fence (absent while a stream is still writing the block)
      const pre = el("pre");
      const code = el("code");
      if (fence[2]) code.dataset.lang = fence[2];
      code.textContent = body.join("\n");
      pre.appendChild(code);
      parent.appendChild(pre);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const h = el(`h${Math.min(6, heading[1].length + 2)}`);
      renderInline(heading[2], h);
      parent.appendChild(h);
      i += 1;
      continue;
    }
    if (RULE.test(line)) { parent.appendChild(el("hr")); i += 1; continue; }
    if (QUOTE.test(line)) {
      const body = [];
      while (i < lines.length && lines[i].trim() && QUOTE.test(lines[i])) {
        body.push(lines[i].replace(QUOTE, ""));
        i += 1;
      }
      const quote = el("blockquote");
      renderBlocks(body, quote);
      parent.appendChild(quote);
      continue;
    }
    if (BULLET.test(line)) { i = renderList(lines, i, parent); continue; }
    if (/^( {4}|\t)/.test(line)) {
      const body = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || !lines[i].trim())) {
        body.push(lines[i].replace(/^( {4}|\t)/, ""));
        i += 1;
      }
      const pre = el("pre");
      const code = el("code");
      code.textContent = body.join("\n").replace(/\n+$/, "");
      pre.appendChild(code);
      parent.appendChild(pre);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])) {
      i = renderTable(lines, i, parent);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !(para.length && isBlockStart(lines[i]))) {
      para.push(lines[i].trim());
      i += 1;
    }
    const p = el("p");
    renderInline(para.join("\n"), p);
    parent.appendChild(p);
  }
}

function renderList(lines, start, parent) {
  const first = BULLET.exec(lines[start]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = el(ordered ? "ol" : "ul");
  if (ordered) {
    const n = parseInt(first[2], 10);
    if (n !== 1) list.start = n;
  }
  let i = start;
  while (i < lines.length) {
    const m = BULLET.exec(lines[i]);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const item = [m[3]];
    i += 1;
    while (i < lines.length) {
      const next = lines[i];
      const bullet = BULLET.exec(next);
      if (bullet && bullet[1].length <= indent) break;
      if (!next.trim()) {
        const after = lines[i + 1];
        if (after === undefined || !/^\s/.test(after) || BULLET.exec(after)?.[1].length <= indent) break;
      }
      item.push(next.slice(Math.min(indent + 2, next.length - next.trimStart().length)));
      i += 1;
    }
    const li = el("li");
    if (item.length === 1) renderInline(item[0], li);
    else renderBlocks(item, li);
    list.appendChild(li);
    while (i < lines.length && !lines[i].trim() && BULLET.test(lines[i + 1] || "")) i += 1;
  }
  parent.appendChild(list);
  return i;
}

function renderTable(lines, start, parent) {
  const table = el("table");
  const head = el("thead");
  const row = el("tr");
  for (const cell of splitRow(lines[start])) {
    const th = el("th");
    renderInline(cell, th);
    row.appendChild(th);
  }
  head.appendChild(row);
  table.appendChild(head);
  const body = el("tbody");
  let i = start + 2;
  while (i < lines.length && lines[i].includes("|") && lines[i].trim()) {
    const tr = el("tr");
    for (const cell of splitRow(lines[i])) {
      const td = el("td");
      renderInline(cell, td);
      tr.appendChild(td);
    }
    body.appendChild(tr);
    i += 1;
  }
  table.appendChild(body);
  const wrap = el("div", "table-wrap");
  wrap.appendChild(table);
  parent.appendChild(wrap);
  return i;
}
