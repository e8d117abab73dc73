/**
 * Secret redaction before anything is stored or printed. Two layers:
 * 1. our own patterns (sync, below): provider key shapes, PEM, JWT, Bearer/Basic, URL passwords,
 *    `KEY=value` with a secret word in the key, a high-entropy token after a secret word, emails;
 * 2. secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend), loaded lazily.
 * Matched spans are replaced by `[REDACTED]`; the rest of the sentence is kept. Idempotent.
 */

/** The marker that replaces every secret. */
export const REDACTED = "[REDACTED]";

interface Pattern {
  name: string;
  re: RegExp;
  /** Capture group to redact (default 0: the whole match). */
  group?: number;
}

/** Words after which any value is a secret (passwords). */
const STRONG_WORD = "(?:pass(?:word|wd|phrase)?|pwd|passcode|client[-_ ]?secret|secret|private[-_ ]?key|credentials?|contraseña|passwort|kennwort|mot de passe|пароль|密码|密碼|パスワード|비밀번호)";
/** Words after which only a token-looking value (digits or mixed case, >= 8 chars) is a secret. */
const WEAK_WORD = "(?:token|api[-_ ]?key|apikey|access[-_ ]?key|auth[-_ ]?token|session[-_ ]?(?:id|key)|cookie|signing[-_ ]?key|account[-_ ]?key|key|dsn|токен|トークン|令牌)";

/** Own patterns, sources in comments: provider docs for the prefixes, RFC 7519 (JWT), RFC 7468 (PEM). */
const PATTERNS: Pattern[] = [
  { name: "pem-private-key", re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/dg },
  { name: "jwt", re: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/dg },
  { name: "aws-access-key-id", re: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b/dg },
  { name: "github-token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/dg },
  { name: "gitlab-token", re: /\bgl(?:pat|dt|ptt|rt|cbt)-[A-Za-z0-9_-]{20,}/dg },
  { name: "slack-token", re: /\bxox[abposre]-[A-Za-z0-9-]{10,}/dg },
  { name: "slack-webhook", re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]+/dg },
  { name: "stripe-key", re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/dg },
  { name: "stripe-webhook-secret", re: /\bwhsec_[A-Za-z0-9]{16,}/dg },
  { name: "openai-anthropic-key", re: /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/dg },
  { name: "google-api-key", re: /\bAIza[0-9A-Za-z_-]{35}/dg },
  { name: "google-oauth-token", re: /\bya29\.[0-9A-Za-z_-]{20,}/dg },
  { name: "npm-token", re: /\bnpm_[A-Za-z0-9]{36}\b/dg },
  { name: "pypi-token", re: /\bpypi-[A-Za-z0-9_-]{50,}/dg },
  { name: "sendgrid-key", re: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/dg },
  { name: "twilio-key", re: /\b(?:SK|AC)[0-9a-f]{32}\b/dg },
  { name: "mailgun-key", re: /\bkey-[0-9a-zA-Z]{32}\b/dg },
  { name: "shopify-token", re: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/dg },
  { name: "digitalocean-token", re: /\bdo[por]_v1_[a-f0-9]{64}\b/dg },
  { name: "huggingface-token", re: /\bhf_[A-Za-z0-9]{30,}\b/dg },
  { name: "discord-bot-token", re: /\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}/dg },
  { name: "telegram-bot-token", re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/dg },
  { name: "azure-account-key", re: /\bAccountKey=([A-Za-z0-9+/=]{20,})/dg, group: 1 },
  { name: "auth-header", re: /\b(?:Bearer|Basic|Token|Bot)\s+([A-Za-z0-9._~+/=-]{12,})/dg, group: 1 },
  { name: "url-password", re: /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{1,256}:([^\s@/]{1,256})@/dgi, group: 1 },
  { name: "url-query-secret", re: /[?&](?:sig|signature|token|access_token|api_key|apikey|key|secret|password|pwd|auth)=([^&\s#]{6,})/dgi, group: 1 },
  { name: "curl-user", re: /(?:^|\s)(?:-u|--user)\s+[^\s:]+:(\S+)/dg, group: 1 },
  {
    name: "kv-strong",
    re: new RegExp(`\\b[A-Za-z0-9_.-]{0,40}${STRONG_WORD}[A-Za-z0-9_.-]{0,40}\\s*(?:=|:=|:|=>)\\s*("[^"\\n]{3,200}"|'[^'\\n]{3,200}'|[^\\s"'\`,;]{3,})`, "dgiu"),
    group: 1,
  },
  {
    name: "kv-weak",
    re: new RegExp(`\\b[A-Za-z0-9_.-]{0,40}${WEAK_WORD}[A-Za-z0-9_.-]{0,40}\\s*(?:=|:=|:|=>)\\s*("[^"\\n]{3,}"|'[^'\\n]{3,}'|[^\\s"'\`,;]{3,})`, "dgiu"),
    group: 1,
  },
  {
    name: "strong-word-then-value",
    re: new RegExp(`${STRONG_WORD}\\s+(?:is|was|=|:|es|ist|est|это|是|は)\\s*[\`"']?([^\\s\`"',;]{6,})`, "dgiu"),
    group: 1,
  },
  {
    name: "weak-word-then-token",
    re: new RegExp(`${WEAK_WORD}\\s+(?:is|was|to|of|=|:|es|ist|est|это|是|は)?\\s*[\`"']?([A-Za-z0-9+/_.~!@#$%^&*=-]{8,})`, "dgiu"),
    group: 1,
  },
  { name: "email", re: /\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b/dg },
  { name: "high-entropy-blob", re: /\b[A-Za-z0-9+/_-]{40,}={0,2}/dg },
];

/**
 * Password-like words: a value stated right after one of them is a secret even when short and plain
 * ("the password hunter2", "pw=hunter2", "PIN: 4821", "пароль qwerty", "密码是abc123", "비밀번호는 abcd").
 * Latin words need word boundaries; the CJK/Korean/Cyrillic ones are matched anywhere.
 */
const PW_LATIN = "pass(?:word|wd|phrase|code)?|pwd|pw|secret|token|api[-_ ]?key|apikey|pin(?:[- ]?code)?|contraseña|clave|passwort|kennwort|mot de passe|senha|parola d'ordine";
const PW_OTHER = "пароль|паролем|пароля|токен|密码|密碼|口令|パスワード|暗証番号|비밀번호|암호";
/** Connectors between the word and its value: copulas in several languages, `:`/`=`, particles (은/는/は/是 ...). */
const PW_LINK = "\\s*(?:[:=：]|=>|:=)\\s*|\\s+(?:is|was|are|will be|should be|es|era|ist|lautet|est|é|è|это|—|-)\\s+|\\s*(?:是|为|為|は|が|는|은|:)\\s*|\\s+";
const PW_VALUE = "[`\"'«“]?([^\\s`\"'«»“”,;]{1,200})";
const PASSWORD_RE = new RegExp(
  `(?:(?<![\\p{L}\\p{N}_])(?:my |the |a |our |your |new |old )?(${PW_LATIN})(?![\\p{L}\\p{N}_])|(${PW_OTHER}))(?:${PW_LINK})${PW_VALUE}`,
  "dgiu",
);
/** Words that follow a password word without being its value ("the password field", "password is required"). */
const NOT_A_VALUE = new Set(
  ("is was are be been the a an to of in on for and or with without from by as at it this that must never always should should't shouldn't will " +
    "can cannot can't may not no do don't does doesn't field fields manager managers policy policies reset resets rotation rotated required " +
    "optional stored managed needed missing changed expired expires provided wrong correct invalid valid secure insecure weak strong long short " +
    "hash hashed hashes hashing salt salted length rules rule prompt prompts input inputs change changes file files env vault vaults store " +
    "stores protected encrypted plain plaintext blank empty set unset here there somewhere anywhere elsewhere only also too very same different " +
    "generator generation auth authentication login logins entry entries update updates in-memory used use using via through into onto " +
    "lives live sits stays stay goes go comes come gets get has have had were being then than so if when where which who what " +
    "expiry expiration lifetime refresh refreshes bucket buckets header headers scope scopes count limit limits budget budgets type types " +
    "exchange flow flows endpoint endpoints holder holders handling handler value values name names owner owners leak leaks leaked " +
    "es el la los las de del en un una y o ist der die das und oder ein eine est le les des et ou une une " +
    "files secrets tokens passwords keys key pins pin code codes number numbers management rotation sharing").split(" "),
);
const PLACEHOLDER_RE = /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\*+|x{3,}|\.{3}|…|\[REDACTED\]?.*|env\(.*|process\.env.*|os\.environ.*|null|none|nil|undefined|true|false|redacted|secret|password|changeme|todo|tbd)$/i;

/**
 * Ranges of values stated right after a password word (PASSWORD_RE). A value is redacted unless it is a
 * placeholder or an ordinary word that grammatically follows the password word (NOT_A_VALUE). A bare value
 * after a Latin word with only a space between ("the password hunter2") must also look like a password:
 * a digit, a symbol or an inner capital, or a value typed in another script than the word (пароль qwerty).
 * PIN values must hold a digit.
 */
export function passwordRanges(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  PASSWORD_RE.lastIndex = 0;
  for (const m of text.matchAll(PASSWORD_RE)) {
    const word = (m[1] ?? m[2] ?? "").toLowerCase();
    let val = m[3];
    const at = m.indices?.[3];
    if (val === undefined || at === undefined) continue;
    val = val.replace(/[.!?:)\]}>]+$/u, "");
    if (val === "" || PLACEHOLDER_RE.test(val) || NOT_A_VALUE.has(val.toLowerCase())) continue;
    const link = text.slice((m.indices?.[1] ?? m.indices?.[2] ?? [0, 0])[1], at[0]);
    const bare = m[1] !== undefined && /^\s+["'`«“]?$/u.test(link);
    const looksTyped = /\p{N}/u.test(val) || /[^\p{L}\p{N}]/u.test(val) || /.\p{Lu}/u.test(val);
    if (/^pin/.test(word) && !/\d/.test(val)) continue;
    if (/^(?:token|api[-_ ]?key|apikey)$/.test(word) && !looksTyped && val.length < 12) continue;
    if (bare && !looksTyped) continue;
    if (m[2] !== undefined && !/[\x21-\x7e]/.test(val)) continue; // "пароль надёжный": a word, not a typed value
    if (/^pin/.test(word) && m[1] === "pin" && !/^PIN/.test(text.slice((m.indices?.[1] ?? [0])[0])) && bare) continue;
    let end = at[0] + val.length;
    // A passphrase may hold spaces: after ":"/"is", the value runs to the end of the clause.
    if (/^passphrase/.test(word) && !bare) end += /^[^,;.!?\n]{0,120}/u.exec(text.slice(end))?.[0].replace(/\s+$/u, "").length ?? 0;
    out.push([at[0], end]);
  }
  return out;
}

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

/** True when a token after a secret word looks like a secret, not an ordinary word ("token is required"). */
function looksSecret(tok: string, name: string): boolean {
  const v = tok.replace(/^["'`]|["'`]$/g, "");
  if (v.startsWith("[REDACTED")) return false;
  // Placeholders and references are not secrets: ${TOKEN}, $TOKEN, <token>, ***, env(...).
  if (/^\$\{?[A-Za-z_]+\}?$|^<[^>]*>$|^\*+$|^(?:true|false|null|none|required|optional|redacted|env\b.*)$/i.test(v)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(v)).length;
  switch (name) {
    case "kv-strong":
      return v.length >= 3;
    case "strong-word-then-value":
      return v.length >= 6 && !/^(?:required|rotated|stored|managed|needed|missing|changed|expired|provided|optional|wrong|correct|invalid)$/i.test(v);
    case "kv-weak":
    case "weak-word-then-token":
      // A real value mixes classes and has a digit: "max_tokens: 4096" (4 chars) and "token is required" stay.
      return v.length >= 8 && classes >= 2 && /\d/.test(v) && entropy(v) >= 2.5;
    case "high-entropy-blob":
      // Mixed case + digits and >= 4 bits/char: random keys; hex SHAs and words fall below this.
      return classes >= 3 && /[a-z]/.test(v) && /[A-Z]/.test(v) && /\d/.test(v) && entropy(v) >= 4.0;
    default:
      return true;
  }
}

/** Character ranges [start, end) that our own patterns flag in `text`. */
export function ownSecretRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (const m of text.matchAll(p.re)) {
      const g = p.group ?? 0;
      const val = m[g];
      const at = m.indices?.[g];
      if (val === undefined || at === undefined) continue;
      if (!looksSecret(val, p.name)) continue;
      const start = at[0];
      ranges.push([start, start + val.length]);
    }
  }
  ranges.push(...passwordRanges(text));
  return ranges;
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
