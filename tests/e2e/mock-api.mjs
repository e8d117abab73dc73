// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for running the real `claude` CLI offline.
// Node built-ins only. Every request is appended to a JSONL log ({n, kind, url, body}); keys are never logged.
// Usage as a module: const api = await startMockApi({ turns, summary, logFile }); ... await api.close();
// Usage as a script:  node tests/e2e/mock-api.mjs --script s.json --log requests.jsonl --port-file port
//   (s.json: {"turns": [{"text": "..."}, {"toolUse": {"name": "Bash", "input": {...}}}, ...], "summary": "..."}).
import http from "node:http";
import fs from "node:fs";
import crypto from "node:crypto";

/** Text of a message's content (string or blocks; tool_result content included). */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => (b?.type === "text" ? b.text : b?.type === "tool_result" ? contentText(b.content) : ""))
    .join("\n");
}

/**
 * Kind of a /v1/messages request: "compact" (the summarisation request: its last user turn asks for
 * a detailed summary), "main" (the agent loop: it carries the Bash/Read tools), else "side" (titles etc.).
 */
export function requestKind(body) {
  const msgs = Array.isArray(body?.messages) ? body.messages : [];
  let i = msgs.length - 1;
  while (i > 0 && msgs[i].role !== "assistant") i--;
  const tail = msgs.slice(Math.max(i, 0)).filter((m) => m.role !== "assistant").map((m) => contentText(m.content)).join("\n");
  if (/create a detailed summary of the conversation/i.test(tail)) return "compact";
  if (Array.isArray(body?.tools) && body.tools.some((t) => t?.name === "Bash" || t?.name === "Read")) return "main";
  return "side";
}

const newId = (p) => `${p}_${crypto.randomBytes(10).toString("hex")}`;

/**
 * The assistant message for a turn: a text block (when `text`), then a tool_use block (when `toolUse`: {name, input},
 * each a value or a function of the request body, so a turn can call a tool the request lists or quote a tool result).
 */
function message(body, text, fake = {}, toolUse = null) {
  const usage = { input_tokens: Math.ceil(JSON.stringify(body).length / 4), output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...fake };
  const content = text ? [{ type: "text", text }] : [];
  if (toolUse) {
    const of = (v) => (typeof v === "function" ? v(body) : v);
    content.push({ type: "tool_use", id: newId("toolu"), name: of(toolUse.name), input: of(toolUse.input) ?? {} });
  }
  const stop_reason = toolUse ? "tool_use" : "end_turn";
  return { id: newId("msg"), type: "message", role: "assistant", model: body.model || "mock", content, stop_reason, stop_sequence: null, usage };
}

function send(res, body, text, fakeUsage, toolUse) {
  const msg = message(body, text, fakeUsage, toolUse);
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json", "request-id": newId("req") });
    res.end(JSON.stringify(msg));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": newId("req") });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev("message_start", { message: { ...msg, content: [], stop_reason: null, usage: { ...msg.usage, output_tokens: 1 } } });
  msg.content.forEach((b, index) => {
    if (b.type === "text") {
      ev("content_block_start", { index, content_block: { type: "text", text: "" } });
      ev("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else {
      ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    ev("content_block_stop", { index });
  });
  ev("message_delta", { delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: msg.usage.output_tokens } });
  ev("message_stop", {});
  res.end();
}

/**
 * Start the mock. `turns`: {text?, usage?, toolUse?} answered, in order, to "main" requests (a turn with `toolUse`
 * makes the CLI run that tool and send its result in the next "main" request, which takes the next turn) (a fake `usage`, e.g.
 * {input_tokens: 90000} with CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000, makes the CLI auto-compact next); `summary`: the canned compaction
 * summary (wrapped in <analysis>/<summary> as the CLI expects). `latencyMs` (default 250) keeps the CLI's
 * transcript writer ahead of the reply. Resolves to { port, close(), requests, unusedTurns() }.
 */
export function startMockApi({ turns = [], summary = "Nothing is pending.", logFile, latencyMs = 250, port = 0 } = {}) {
  const queue = [...turns];
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const path = (req.url || "").split("?")[0];
      const kind = req.method === "POST" && path === "/v1/messages" && body ? requestKind(body) : "other";
      const entry = { n: requests.length + 1, kind, method: req.method, url: req.url, body };
      requests.push(entry);
      if (logFile) fs.appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
      if (kind === "other") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `mock: no route ${path}` } }));
        return;
      }
      const turn = kind === "main" ? (queue.shift() ?? { text: "OK (mock queue empty)." }) : {};
      const text =
        kind === "compact"
          ? `<analysis>Mock analysis.</analysis>\n<summary>\n${summary}\n</summary>`
          : kind === "main"
            ? turn.text
            : JSON.stringify({ title: "Mock session" });
      setTimeout(() => send(res, body, text, turn.usage, kind === "main" ? turn.toolUse : null), latencyMs);
    });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => {
      resolve({
        port: server.address().port,
        requests,
        unusedTurns: () => queue.length,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) if (argv[i].startsWith("--")) a[argv[i].slice(2)] = argv[i + 1];
  const script = a.script ? JSON.parse(fs.readFileSync(a.script, "utf8")) : {};
  const api = await startMockApi({ ...script, logFile: a.log, port: Number(a.port || 0) });
  if (a["port-file"]) fs.writeFileSync(a["port-file"], String(api.port));
  console.log(`mock-api on http://127.0.0.1:${api.port}`);
  process.on("SIGTERM", () => api.close().then(() => process.exit(0)));
}
