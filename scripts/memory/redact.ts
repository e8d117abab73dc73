/**
 * Secret redaction before anything is stored or printed. Two layers:
 * 1. our own patterns (sync): provider key shapes, cloud key id + secret pairs, PEM, JWT, auth headers, URL and
 *    command-line passwords, `KEY=value` with a secret word in the key, a token after a secret word, emails,
 *    high-entropy blobs (secret-patterns.ts), and credentials given in prose in seven languages (credential-prose.ts);
 * 2. secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend), loaded lazily.
 * Matched spans are replaced by `[REDACTED]`; the rest of the sentence is kept. Idempotent.
 */
import { passwordRanges } from "./credential-prose.js";
import { PATTERNS, type Vet } from "./secret-patterns.js";

export { passwordRanges };

/** The marker that replaces every secret. */
export const REDACTED = "[REDACTED]";

/** Shannon entropy of a string in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Ordinary words that follow a password word ("the password is required"), never its value. */
const ORDINARY_AFTER_WORD = /^(?:required|rotated|stored|managed|needed|missing|changed|expired|provided|optional|wrong|correct|invalid)$/i;

/** True when a value captured by a pattern looks like a secret under its vetting rule (secret-patterns.ts Vet). */
function looksSecret(tok: string, vet: Vet | undefined): boolean {
  const v = tok.replace(/^["'`]|["'`]$/g, "");
  if (v.startsWith("[REDACTED")) return false;
  // Placeholders and references are not secrets: ${TOKEN}, $TOKEN, {DB_PASS}, ${{ secrets.X }}, %TOKEN%, $(cmd), <token>, ***, env(...).
  if (/^\$\{?[A-Za-z_]+\}?$|^\$?\{\{?[^{}]*\}?\}?$|^%[A-Za-z_]+%$|^\$\(.*$|^<[^>]*>$|^\*+$|^(?:true|false|null|none|required|optional|redacted|env\b.*)$/i.test(v)) return false;
  // A command-line flag after a cue word ("pass the token --ttl=3600s") is an option, not the secret.
  if (vet !== undefined && /^--?[A-Za-z][A-Za-z0-9-]*(?:=.*)?$/.test(v)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(v)).length;
  switch (vet) {
    case "kv":
      // A file path (SECRET_PATH=/etc/app/secret, PASSWORD_FILE=./pw.txt) says where a secret is; it is not one.
      return v.length >= 3 && !/^(?:~|\.{1,2})?\/[\w.-]+(?:\/[\w.-]*)*$/.test(v);
    case "word":
      // A lowercase participle or adverb ("hashed", "rotated", "monthly") describes the password; it is not one.
      return v.length >= 6 && !ORDINARY_AFTER_WORD.test(v) && !/^[a-z]+(?:ed|ly|ing)$/.test(v);
    case "flag":
      // A path, an option list (`--secret id=npmrc,src=.npmrc`) or an env var name is not the secret itself.
      return v.length >= 4 && !/^[./~]|^[\w-]+=|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(v);
    case "weak":
      // A real value mixes classes and has a digit: "max_tokens: 4096" (4 chars) and "token is required" stay.
      return v.length >= 8 && classes >= 2 && /\d/.test(v) && entropy(v) >= 2.5;
    case "token":
      return v.length >= 8 && classes >= 2 && /\d/.test(v) && entropy(v) >= 2.5 && v.split(/[-_./+=~]/).some((seg) => seg.length >= 10 && /\d/.test(seg) && /[A-Za-z]/.test(seg));
    case "short":
      return v.length >= 6 && /[A-Za-z]/.test(v) && /\d/.test(v) && (v.match(/[A-Za-z](?=\d)|\d(?=[A-Za-z])/g)?.length ?? 0) >= 2;
    case "typed":
      return /\d|.[A-Z]|[^A-Za-z0-9]/.test(v);
    case "blob":
      // Mixed case + digits and >= 4 bits/char: random keys; hex SHAs and words fall below this.
      return classes >= 3 && /[a-z]/.test(v) && /[A-Z]/.test(v) && /\d/.test(v) && entropy(v) >= 4.0;
    default:
      return true;
  }
}

/** The text before a match ends inside a URL (scheme, `://`, no space since). */
const URL_BEFORE = /[A-Za-z][A-Za-z0-9+.-]*:\/\/\S*$/;

/**
 * Character ranges [start, end) that our own patterns flag in `text`. Text holding JSON or shell escapes (a tool
 * call's `{"command":"export DB_PASSWORD=\\"x\\""}` in a transcript, a JSON string pasted inside another) is also read
 * unescaped, so a quoted value is found as it is when unescaped.
 */
export function ownSecretRanges(text: string): Array<[number, number]> {
  const ranges = rangesIn(text);
  if (/\\(?:["'\\ntr]|u[0-9a-fA-F]{4})/.test(text)) {
    const { view, at } = unescaped(text);
    for (const [s, e] of rangesIn(view)) {
      const last = at[e - 1] as number;
      ranges.push([at[s] as number, last + (text[last] === "\\" ? 2 : 1)]);
    }
  }
  return ranges;
}

/**
 * `text` with its backslash escapes undone (`\\"` `\\'` `\\\\` become the character, `\\n` `\\r` `\\t` a line break or
 * tab), and `at[i]`: the index in `text` of the view's character i (an escape maps to its backslash), so a range
 * found in the view is a range of `text`.
 */
export function unescaped(text: string): { view: string; at: number[] } {
  let view = "";
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const n = text[i + 1];
    const hex = c === "\\" && n === "u" ? /^[0-9a-fA-F]{4}/.exec(text.slice(i + 2, i + 6))?.[0] : undefined;
    if (hex !== undefined) {
      view += String.fromCharCode(Number.parseInt(hex, 16)); // a JSON \u escape: "password\u003dX" is password=X
      at.push(i);
      i += 5;
      continue;
    }
    if (c === "\\" && n !== undefined && "\"'\\ntr".includes(n)) {
      view += n === "n" ? "\n" : n === "r" ? "\r" : n === "t" ? "\t" : n;
      at.push(i);
      i++;
      continue;
    }
    view += c;
    at.push(i);
  }
  return { view, at };
}

/** Patterns whose match may span lines: a PEM block, and a cloud key id with its secret on the next line. */
const MULTILINE = new Set(["pem-private-key", "cloud-key-pair"]);

/**
 * Ranges our patterns flag in `text`. A secret never spans a line break, and a cue word on one line says nothing about
 * the next ("## Rotate the token\ndeploy.sh"), so every pattern but MULTILINE runs on each line by itself.
 */
function rangesIn(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const lines: Array<[string, number]> = [];
  if (text.includes("\n")) {
    let off = 0;
    for (const line of text.split("\n")) {
      lines.push([line, off]);
      off += line.length + 1;
    }
  } else lines.push([text, 0]);
  for (const p of PATTERNS) {
    if (p.hint && !p.hint.test(text)) continue;
    for (const [line, off] of MULTILINE.has(p.name) ? [[text, 0] as [string, number]] : lines) patternRanges(line, off, p, ranges);
  }
  for (const [line, off] of lines) for (const [s, e] of passwordRanges(line)) ranges.push([s + off, e + off]);
  return ranges;
}

/** Push onto `out` the ranges (shifted by `off`) of `p`'s vetted matches in `text`. */
function patternRanges(text: string, off: number, p: (typeof PATTERNS)[number], out: Array<[number, number]>): void {
  // One test first: matchAll copies the regex and builds an iterator, which cost more than the search itself
  // on the short texts most patterns do not match.
  p.re.lastIndex = 0;
  if (!p.re.test(text)) return;
  p.re.lastIndex = 0;
  for (const m of text.matchAll(p.re)) {
    const g = p.group ?? 0;
    const val = m[g];
    const at = m.indices?.[g];
    if (val === undefined || at === undefined) continue;
    if (!looksSecret(val, p.vet)) continue;
    const start = at[0];
    if (p.vet === "blob" && val.includes("/") && URL_BEFORE.test(text.slice(Math.max(0, start - 300), start))) {
      // Inside a URL a 40+ character run is usually a path (owner/repo/releases/tag/v1): only a segment that is
      // a blob by itself is a secret.
      let o = start;
      for (const seg of val.split("/")) {
        if (seg.length >= 32 && looksSecret(seg, "blob")) out.push([off + o, off + o + seg.length]);
        o += seg.length + 1;
      }
      continue;
    }
    out.push([off + start, off + start + val.length]);
  }
}

/** Replace the union of `ranges` in `text` by REDACTED. */
export function applyRanges(text: string, ranges: Array<[number, number]>): string {
  if (ranges.length === 0) return text;
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  let out = "";
  let pos = 0;
  for (const [s, e] of merged) {
    out += text.slice(pos, s) + REDACTED;
    pos = e;
  }
  return out + text.slice(pos);
}

/** Redact with our own patterns only (sync; for logs, warnings and error lines). */
export function redactSync(text: string): string {
  return applyRanges(text, ownSecretRanges(text));
}

/** Texts secretlint could flag: a 16+ character key-like token, a PEM header, or credentials in a URL. */
export const SECRETLINT_PREFILTER = /[A-Za-z0-9_\-+/=.]{16,}|-----BEGIN|:\/\/[^\s/]*@|"auths?"/;

type LintFn = (texts: string) => Promise<Array<[number, number]>>;
let secretlint: LintFn | null | undefined;

async function loadSecretlint(): Promise<LintFn | null> {
  if (secretlint !== undefined) return secretlint;
  try {
    const core = await import("@secretlint/core");
    const preset = await import("@secretlint/secretlint-rule-preset-recommend");
    const config = { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: preset.creator }] };
    secretlint = async (content: string) => {
      const res = await core.lintSource({
        source: { filePath: "transcript.txt", content, ext: ".txt", contentType: "text" },
        options: { config, noPhysicFilePath: true },
      });
      return res.messages.map((m) => [m.range[0], m.range[1]] as [number, number]);
    };
  } catch {
    secretlint = null;
  }
  return secretlint;
}

/**
 * Redact many texts: own patterns plus secretlint's recommended preset (one batched lint call over the
 * texts joined by blank lines). Output[i] corresponds to texts[i]. If secretlint fails to load, the own
 * patterns still apply and `warnings` says so.
 */
export async function redactTexts(all: readonly string[]): Promise<{ texts: string[]; warnings: string[] }> {
  const warnings: string[] = [];
  const own = all.map((t) => ownSecretRanges(t));
  // secretlint only sees texts that could hold one of its shapes (every recommended rule needs a token of
  // 16+ key characters, a PEM header, or credentials in a URL); the rest skip the lint call.
  const idx = all.map((_, i) => i).filter((i) => SECRETLINT_PREFILTER.test(all[i] as string));
  const texts = idx.map((i) => all[i] as string);
  const lint = texts.length > 0 ? await loadSecretlint() : null;
  if (lint && texts.length > 0) {
    const SEP = "\n\n";
    const starts: number[] = [];
    let pos = 0;
    for (const t of texts) {
      starts.push(pos);
      pos += t.length + SEP.length;
    }
    try {
      const ranges = await lint(texts.join(SEP));
      for (const [s, e] of ranges) {
        // Binary search the text holding this range.
        let lo = 0;
        let hi = texts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if ((starts[mid] as number) <= s) lo = mid;
          else hi = mid - 1;
        }
        const base = starts[lo] as number;
        const len = (texts[lo] as string).length;
        own[idx[lo] as number]?.push([Math.max(0, s - base), Math.min(len, e - base)]);
      }
    } catch (err) {
      warnings.push(`secretlint failed (${(err as Error).message}); own patterns applied`);
    }
  } else if (texts.length > 0 && !lint) warnings.push("secretlint not available; own patterns applied");
  return { texts: all.map((t, i) => applyRanges(t, own[i] ?? [])), warnings };
}
