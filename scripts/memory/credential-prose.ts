/**
 * Credentials given in prose, in the seven languages of the real-session set (en de es ru zh ja ko):
 * "the password is hunter2", "Das Passwort für den Server lautet …", "пароль от стейджинга — …",
 * "the staging login is deploy / …", "user deploy pass …", "sign in with … as the password".
 * Pure: returns character ranges of the values; redact.ts replaces them. A word that only sounds like a cue
 * ("tests must pass", "pass --frozen-lockfile", "the token is read from GITHUB_TOKEN") yields no range.
 */

/** Latin-script password words (word boundaries needed). Bare "pass" is a cue only in a login context (below). */
const PW_LATIN =
  "pass[- ]phrase|passsatz|kennsatz|frase (?:de contraseña|de paso|secreta)|phrase (?:secrète|de passe)|pass(?:word|wd|phrase|code)?|pwd|pw|(?:client[-_ ]?)?secret|token|api[-_ ]?key|apikey|pin(?:[- ]?code)?|(?:door|gate|alarm|safe|lock|entry|keypad|garage|building)[- ]?code|contraseña|clave|passwort|kennwort|mot de passe|senha|parola d'ordine";
/** Password words of other scripts, matched anywhere (no word boundaries in CJK). */
const PW_OTHER = "парольн(?:ая|ую|ой) фраз(?:а|у|ой)|密码短语|口令短语|パスフレーズ|패스프레이즈|암호 문구|пароль|паролем|пароля|токен|密码|密碼|口令|パスワード|暗証番号|비밀번호|비밀 번호|비번|패스워드|암호|كلمة المرور|كلمة السر|كلمة مرور|الرمز السري";
/** Connectors between the word and its value: copulas in several languages, `:`/`=`, particles (은/는/は/是 ...). */
const PW_LINK =
  "\\s+(?:is|was|ist|lautet|es|est|это)\\s*[:：]\\s*|\\s*(?:[:=：]|=>|:=)\\s*|\\s+(?:is|was|are|will be|should be|es|era|ist|lautet|est|é|è|это|—|-|هي|هو)\\s+|\\s*(?:是|为|為|は|が|는|은|:)\\s*|\\s+";
const PW_VALUE = "[`\"'«“「『]?([^\\s`\"'«»“”「」『』,;]{1,200})";
const PASSWORD_RE = new RegExp(
  `(?:(?<![\\p{L}\\p{N}_-])(?:my |the |a |our |your |new |old )?(${PW_LATIN})(?![\\p{L}\\p{N}_-])|(${PW_OTHER}))(?:${PW_LINK})${PW_VALUE}`,
  "dgiu",
);

/** Prepositions that open a qualifier between a password word and its copula ("password for the admin panel is"). */
const PREP = "for|of|to|on|at|in|für|fürs|von|vom|zum|zur|des|der|de|del|para|от|для|к|на|в|во";
/**
 * A password word, a qualifier of 1 to 5 words, a copula or colon, then the value:
 * "Das Passwort für den Staging-Server lautet X", "la contraseña del panel de administración es X",
 * "пароль от стейджинга — X", "the password for prod: X".
 */
const QUALIFIED_RE = new RegExp(
  `(?<![\\p{L}\\p{N}_-])(?:password|passwort|kennwort|contraseña|clave|passphrase|пароль|senha|(?:[\\p{L}\\p{N}]+[_-])?(?:secret|token)|api[-_ ]?key|access[-_ ]?key)\\s+(?:${PREP})\\s+(?:[^\\s,.;:!?：]+\\s+){0,4}?[^\\s,.;:!?：]+` +
    `(?:\\s*[:=：]\\s*|\\s+(?:is|was|lautet|ist|es|era|est|это|—|–|-)\\s+|\\s*[—–]\\s*)${PW_VALUE}`,
  "dgiu",
);

/** Words that name a login or an account, in the seven languages. */
const LOGIN_LATIN =
  "login|log in|log-in|sign in|sign-in|user(?:name)?|account|creds|credentials|zugang(?:sdaten)?|anmeldung|benutzer(?:name)?|konto|usuario|cuenta|acceso|credenciales|логин|пользователь|учётка|учетка|учётная запись|доступ";
const LOGIN_OTHER = "账号|帳號|账户|用户名?|登录|登入|ログイン|ユーザー名?|アカウント|아이디|계정|로그인|사용자";
/** A login word: Latin/Cyrillic ones as whole words, CJK/Korean ones anywhere. */
const LOGIN_WORD = `(?:(?<![\\p{L}\\p{N}_])(?:${LOGIN_LATIN})(?![\\p{L}\\p{N}_])|(?:${LOGIN_OTHER}))`;
/**
 * A login word, an optional qualifier ("for the dashboard"), a link (":", "is", "は", "는"), a user name, a
 * slash with spaces around it, the password: "the staging login is deploy / X", "Login für das Dashboard:
 * admin / X", "ログインは deploy / X". "Login via SSO / OAuth2" has no link and does not count.
 */
const LOGIN_SLASH_RE = new RegExp(
  `${LOGIN_WORD}(?:\\s+(?:${PREP}|the)\\s+[^\\s:：]+(?:\\s+[^\\s:：]+){0,3}?)?` +
    `(?:\\s*[:：=]\\s*|\\s+(?:is|as|ist|lautet|es|son|это|—|-)\\s+|\\s*(?:は|는|은|是)\\s*)` +
    `[\`"']?[\\p{L}\\p{N}._@-]{2,40}[\`"']?\\s+/\\s+${PW_VALUE}`,
  "dgiu",
);
/** Well-known account names (database, OS and admin-panel defaults): a typed value after "name / " or "name:" is its password. */
const ACCOUNTS = "admin|administrator|root|sa|postgres|deploy|ubuntu|guest|operator|superuser|elastic|oracle";
/**
 * A well-known account name, a slash with spaces around it, the password, with no login word: "the admin panel takes
 * admin / X", "管理画面には admin / X で入れます". The value must look typed and be 6 or more characters (typedRanges),
 * so "admin / user roles" is prose; "admin/settings" (no spaces) is a path.
 */
const ACCOUNT_SLASH_RE = new RegExp(
  `(?<![\\p{L}\\p{N}_./-])(?:${ACCOUNTS})\\s+/\\s+${PW_VALUE}`,
  "dgiu",
);
const ACCOUNT_HINT = new RegExp(`\\b(?:${ACCOUNTS}) / `, "i");
/**
 * Getting in, without a login word: "管理画面には admin / X で入れます", "you get in with admin / X", "entras con admin / X",
 * "войти можно как admin / X", "用 admin / X 进去", "admin / X 로 들어가". With such a verb anywhere in the sentence, a
 * user name, a slash with spaces around it and a typed value (6+ characters) is a login pair.
 */
const ENTRY_VERB = /入れ(?:ます|る|た)|入れます|入れる|ログインでき|get in|log into|sign into|entr(?:as|a|ar|o)\b|acced(?:er|es|e)|reinkommen|einloggen|anmelden|войти|зайти|заходи|进入|进去|登进|들어가|들어올|접속/iu;
const PAIR_RE = /(?<![\p{L}\p{N}._@-])[\p{L}\p{N}._@-]{2,40}\s+\/\s+[`"']?([^\s`"',;]{1,200})/dgu;

/**
 * `account:password` or `account/password` of a well-known account, outside a URL: "SSH in with root:toor123",
 * "ssh root/My$ecretP@ss!". The value must hold a letter and a digit or symbol and be 6 or more characters, so
 * "postgres:5432" (a host and port), "root:root" and "root/projects" are not passwords.
 */
const ACCOUNT_COLON_RE = new RegExp(
  `(?<![\\p{L}\\p{N}_./:@-])(?:${ACCOUNTS})[:/]([^\\s/:,;'"\`]{6,200})(?=$|[\\s,;.!?)])`,
  "dgiu",
);
const ACCOUNT_COLON_HINT = new RegExp(`\\b(?:${ACCOUNTS})[:/]\\S`, "i");
/**
 * A login word (or "user/pass"), an optional link, and `user/password` or `user:password` with nothing around the
 * separator: "log in with the creds admin/Winter2024", "the db user/pass is alice/Wint3r2024", "login alice:Pa55word".
 */
const LOGIN_TIGHT_SLASH_RE = new RegExp(
  `${LOGIN_WORD}(?:/pass(?:word)?)?(?:\\s+(?:is|are|was|ist|es|это|:|=)\\s+|\\s*[:=]\\s*|\\s+)(?:as\\s+)?[\\p{L}\\p{N}._@-]{2,40}[/:]([^\\s/@\`"',;]{6,200})(?=$|[\\s,;.!?)])`,
  "dgiu",
);
/** A login word, a few words, then "as"/"with" and `user:password` or `user/password`: "log in to staging as alice:X". */
const LOGIN_AS_RE = new RegExp(
  `${LOGIN_WORD}(?:\\s+[^\\s:：/]+){0,4}?\\s+(?:as|with|using|als|mit|con|como|как|под)\\s+[\\p{L}\\p{N}._@-]{2,40}[/:]([^\\s/\`"',;]{6,200})(?=$|[\\s,;.!?)])`,
  "dgiu",
);
/** "user deploy pass X", "login: deploy, pw X": bare pass/pw after a login word and a user name. */
const LOGIN_PASS_RE = new RegExp(
  `${LOGIN_WORD}\\s*[:=]?\\s*[\`"']?[\\p{L}\\p{N}._@-]{2,40}[\`"']?\\s*[,/]?\\s+(?:pass|pw|pwd)\\s*[:=]?\\s+${PW_VALUE}`,
  "dgiu",
);
/** "sign in with X as the password", "use X as your passphrase". */
const AS_PASSWORD_RE = /\b(?:with|using|use)\s+[`"']?([^\s`"',;]{1,200}?)[`"']?\s+as\s+(?:the\s+|your\s+|a\s+|my\s+)?(?:password|passphrase|passwort|pw)\b/dgiu;

/** Passphrase words in the seven languages: their value is a clause of 2+ words ("passphrase: purple monkey dishwasher 42"). */
const PHRASE_WORD = /^(?:pass[- ]?phrase|passsatz|kennsatz|frase |phrase |парольн|密码短语|口令短语|パスフレーズ|패스프레이즈|암호 문구)/u;
/** Password words whose value may be a clause of 3+ words ("the password is correct horse battery staple"). */
const PASSWORD_WORD = /^(?:pass(?:word|wd|code)|pwd|pw|contraseña|clave|passwort|kennwort|mot de passe|senha|пароль|密码|密碼|口令|パスワード|비밀번호|비밀 번호|비번|패스워드|암호)$/u;
/**
 * Words that make a clause a description rather than a value ("the password is stored in Vault", "… is rotated
 * monthly by ops", "die Passphrase wird im Tresor gespeichert"): articles, prepositions, auxiliaries, pronouns
 * and frequency adverbs of the Latin-script and Cyrillic languages of the set.
 */
const FUNCTION_WORDS = new Set(
  (
    "the a an to of in on at for from by with without into onto over under via through and or but nor not no never ever always only also just " +
    "still then than so if when where which who what that this these those it its they them their we our us you your he she his her is are " +
    "was were be been being am do does did has have had will would shall should can could may might must cannot can't won't don't doesn't " +
    "isn't aren't wasn't again any every each all some more most less very too usually often sometimes here there now later before after " +
    "until unless while because since as per see ask check use der die das den dem des ein eine einen einem und oder nicht nie immer im am " +
    "an auf für mit von vom zum zur wird werden ist sind bei aus el la los las un una de del en y o nunca siempre se son con por para al " +
    "ich du er wir ihr sie es man le les du une et ou ne pas jamais toujours dans avec pour par sont в во на не и или с со по для от к из у за это что как только никогда всегда"
  ).split(" "),
);
/** First words of a description ("is required", "is case sensitive", "is managed by ops"). */
const DESCRIPTION_START = new Set(
  "required optional needed missing wrong invalid valid weak strong long short case unique unknown empty blank set unset same different random secret private known".split(" "),
);

/**
 * End index of a multi-word value starting at `start`: the clause up to `, ; . ! ?` or a line break, when it has
 * `minWords` to 8 words, none of them a function word, the first not a description ("required", "stored",
 * "monthly") nor typed (a one-word password, handled by the caller). Undefined when the clause reads as a description.
 */
function phraseEnd(text: string, start: number, minWords: number): number | undefined {
  const clause = (/^[^,;.!?\n。，；！？、]{0,160}/u.exec(text.slice(start))?.[0] ?? "").replace(/\s+$/u, "");
  const words = clause.split(/\s+/u).filter((w) => w !== "");
  if (words.length < minWords || words.length > 8) return undefined;
  const bare = words.map((w) => w.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}']+$/gu, ""));
  if (bare.some((w) => FUNCTION_WORDS.has(w))) return undefined;
  const first = bare[0] ?? "";
  if (DESCRIPTION_START.has(first) || /^\p{Ll}+(?:ed|ly|ing|en)$/u.test(first)) return undefined;
  // A typed first word ("Xk9#2mq Ich vergesse …", a sentence running on without a stop) is a one-word value.
  if (looksTyped(words[0] ?? "")) return undefined;
  return start + clause.length;
}

/** Words that follow a password word without being its value ("the password field", "password is required"). */
const NOT_A_VALUE = new Set(
  (
    "is was are be been the a an to of in on for and or with without from by as at it this that must never always should should't shouldn't will " +
    "can cannot can't may not no do don't does doesn't field fields manager managers policy policies reset resets rotation rotated required " +
    "optional stored managed needed missing changed expired expires provided wrong correct invalid valid secure insecure weak strong long short " +
    "hash hashed hashes hashing salt salted length rules rule prompt prompts input inputs change changes file files env vault vaults store " +
    "stores protected encrypted plain plaintext blank empty set unset here there somewhere anywhere elsewhere only also too very same different " +
    "generator generation auth authentication login logins entry entries update updates in-memory used use using via through into onto " +
    "lives live sits stays stay goes go comes come gets get has have had were being then than so if when where which who what " +
    "expiry expiration lifetime refresh refreshes bucket buckets header headers scope scopes count limit limits budget budgets type types " +
    "exchange flow flows endpoint endpoints holder holders handling handler value values name names owner owners leak leaks leaked " +
    "es el la los las de del en un una y o ist der die das und oder ein eine est le les des et ou une une " +
    "files secrets tokens passwords keys key pins pin code codes number numbers management rotation sharing case sensitive see ask check least"
  ).split(" "),
);
const PLACEHOLDER_RE =
  /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$?\{\{?[^{}]*\}?\}?|%[A-Za-z_]+%|\$\(.*|<[^>]*>|\*+|x{3,}|\.{3}|…|\[REDACTED\]?.*|env\(.*|process\.env.*|os\.environ.*|null|none|nil|undefined|true|false|redacted|secret|password|changeme|todo|tbd)$/i;

/** Literal prefilters (no boundaries): a text without any of these cannot match the patterns above. */
const PW_HINT = new RegExp(`${PW_LATIN}|${PW_OTHER}`, "iu");
const QUALIFIED_HINT = /password|passwort|kennwort|contraseña|clave|passphrase|пароль|senha|secret|token|api[-_ ]?key|access[-_ ]?key/iu;
const LOGIN_HINT = new RegExp(`${LOGIN_LATIN}|${LOGIN_OTHER}`, "iu");

/** True for a value typed by someone rather than a word: a digit, a symbol, or an inner capital. */
function looksTyped(val: string): boolean {
  return /\p{N}/u.test(val) || /[^\p{L}\p{N}]/u.test(val) || /.\p{Lu}/u.test(val);
}

/**
 * True when `val` is not a secret whatever word precedes it: a placeholder, a command-line flag
 * (`--frozen-lockfile`), an environment variable name (`GITHUB_TOKEN`), or no letter or digit at all.
 */
function notAValue(val: string): boolean {
  return (
    val === "" ||
    PLACEHOLDER_RE.test(val) ||
    NOT_A_VALUE.has(val.toLowerCase()) ||
    /^-/.test(val) ||
    /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(val) ||
    !/[\p{L}\p{N}]/u.test(val)
  );
}

/** The closing quote of each opening quote a value may be given in. */
const QUOTE_PAIRS: Readonly<Record<string, string>> = { '"': '"', "'": "'", "`": "`", "«": "»", "“": "”", "「": "」", "『": "』" };

/** Strip closing punctuation and quotes a sentence puts after a value. */
// "!" stays: it ends many passwords ("Pa55word!!"), and redacting a sentence's "!" with it costs nothing.
const trimValue = (v: string): string => v.replace(/[.?:)\]}>。、，！？]+$/u, "");

/**
 * Ranges of values stated right after a password word (PASSWORD_RE). A value is redacted unless notAValue.
 * A bare value after a Latin word with only a space between ("the password hunter2") must look typed
 * (a digit, a symbol or an inner capital); a value after a Cyrillic/CJK/Korean word must hold an ASCII
 * character (пароль qwerty, not пароль надёжный). PIN values must hold a digit; bare "pass" needs a
 * `:`/`=` link ("pass: x"), since "tests must pass --no-cache" is a verb.
 */
function wordRanges(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const m of text.matchAll(PASSWORD_RE)) {
    const word = (m[1] ?? m[2] ?? "").toLowerCase();
    const at = m.indices?.[3];
    if (m[3] === undefined || at === undefined) continue;
    const val = trimValue(m[3]);
    const link = text.slice((m.indices?.[1] ?? m.indices?.[2] ?? [0, 0])[1], at[0]);
    // A quoted value ('the passphrase "blue elephant sunrise"', 'password is "correct horse"') is a value whatever its words:
    // redacted up to its closing quote.
    const open = link.slice(-1);
    const close = QUOTE_PAIRS[open];
    // After "token"/"secret"/"api key" with only a space, a quote is more often prose ("the token 'in the URL'").
    // Bare "pass" is a verb unless a ":"/"=" follows it ("pass `--no-cache`"), as below.
    const verbPass = word === "pass" && !/[:=：]/.test(link);
    if (close !== undefined && !verbPass && !(/^\s+\S$/u.test(link) && /^(?:token|secret|api|apikey)/.test(word))) {
      const end = text.indexOf(close, at[0]);
      const inner = end > at[0] && end - at[0] <= 200 ? text.slice(at[0], end) : "";
      // After a CJK or Korean word a quoted single word without ASCII is emphasis (「必ず」), not a value (「さくら もち 2024」).
      const emphasis = m[2] !== undefined && !/^\p{Script=Cyrillic}/u.test(word) && !/[\x21-\x7e\s]/.test(inner);
      if (inner.trim() !== "" && !emphasis && !PLACEHOLDER_RE.test(inner.trim()) && !/^-/.test(inner) && !/\n/.test(inner)) {
        out.push([at[0], end]);
        continue;
      }
    }
    // A passphrase or a password of several words after ":"/"="/a copula: the whole clause, unless it reads as a description.
    if (!/^\s+$/u.test(link) && !verbPass && (PHRASE_WORD.test(word) || PASSWORD_WORD.test(word))) {
      const end = phraseEnd(text, at[0], PHRASE_WORD.test(word) ? 2 : 3);
      // After a CJK or Korean word the words are not space-separated, so a function word cannot be told: the value
      // must hold ASCII, as below ("비밀번호는 로그에 남기지 마세요" is a rule). Cyrillic words are checked like Latin ones.
      // After a colon ("stagingのパスワード：さくら もち 二〇二四") a clause of space-separated words is a value whatever its script.
      const unsplit = m[2] !== undefined && !/^\p{Script=Cyrillic}/u.test(word) && !/[:：]/.test(link);
      if (end !== undefined && !(unsplit && !/[\x21-\x7e]/.test(text.slice(at[0], end)))) {
        out.push([at[0], end]);
        continue;
      }
    }
    if (notAValue(val)) continue;
    const bare = m[1] !== undefined && /^\s+["'`«“]?$/u.test(link);
    const typed = looksTyped(val);
    if (word === "pass" && (!/[:=：]/.test(link) || !typed)) continue;
    if ((/^pin/.test(word) || /code$/.test(word)) && !/\d/.test(val)) continue;
    if (/^(?:token|api[-_ ]?key|apikey)$/.test(word) && !typed && val.length < 12) continue;
    if (bare && !typed) continue;
    if (m[2] !== undefined && !/[\x21-\x7e]/.test(val)) continue;
    if (/^pin/.test(word) && m[1] === "pin" && !/^PIN/.test(text.slice((m.indices?.[1] ?? [0])[0])) && bare) continue;
    let end = at[0] + val.length;
    // A passphrase may hold spaces: after ":"/"is", the value runs to the end of the clause.
    if (/^passphrase/.test(word) && !bare) end += /^[^,;.!?\n]{0,120}/u.exec(text.slice(end))?.[0].replace(/\s+$/u, "").length ?? 0;
    out.push([at[0], end]);
  }
  return out;
}

/** Password words of QUALIFIED_RE whose value may be a clause of words (the rest are single tokens: secret, token, api key). */
const QUALIFIED_PHRASE_WORD = /^(?:pass[- ]?phrase|password|passwort|kennwort|contraseña|clave|пароль|senha)/iu;

/**
 * Ranges of the values after a qualified password word (QUALIFIED_RE): a typed value, or, after a passphrase or password
 * word, a clause of words that does not read as a description ("the passphrase for the staging vault: tango whiskey
 * foxtrot lima", "Passwort für staging: grüne Gurke Sonnenschein"; 2+ words after a passphrase word, 3+ after a password word).
 */
function qualifiedRanges(text: string): Array<[number, number]> {
  const out = typedRanges(text, QUALIFIED_RE, 1);
  for (const m of text.matchAll(QUALIFIED_RE)) {
    const at = m.indices?.[1];
    const word = QUALIFIED_PHRASE_WORD.exec(m[0])?.[0].toLowerCase();
    if (at === undefined || word === undefined || notAValue(trimValue(m[1] ?? ""))) continue;
    const end = phraseEnd(text, at[0], /phrase/.test(word) ? 2 : 3);
    if (end !== undefined) out.push([at[0], end]);
  }
  return out;
}

/**
 * A key named for what it unlocks ("the vault key: tango whiskey foxtrot", "master key: …"), then a colon: a clause of
 * 2+ words that does not read as a description is its value. A bare "key:" ("Sort key: …") is not a cue.
 */
const NAMED_KEY_RE = /(?<![\p{L}\p{N}_-])(?:vault|master|encryption|decryption|recovery|unlock|signing|private|safe|wallet)[- _]?key\s*[:：]\s*/dgiu;

/** Ranges of the multi-word values after NAMED_KEY_RE (single typed values are the patterns' of secret-patterns.ts). */
function namedKeyRanges(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const m of text.matchAll(NAMED_KEY_RE)) {
    const start = (m.index ?? 0) + m[0].length;
    const first = /^\S+/u.exec(text.slice(start))?.[0] ?? "";
    if (notAValue(trimValue(first))) continue;
    const end = phraseEnd(text, start, 2);
    if (end !== undefined) out.push([start, end]);
  }
  return out;
}

/** Ranges of the typed values (at least `minLength` long) captured by `re` in group `g`. */
function typedRanges(text: string, re: RegExp, g: number, minLength = 1): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const m of text.matchAll(re)) {
    const at = m.indices?.[g];
    const raw = m[g];
    if (raw === undefined || at === undefined) continue;
    const val = trimValue(raw);
    if (notAValue(val) || !looksTyped(val) || val.length < minLength) continue;
    out.push([at[0], at[0] + val.length]);
  }
  return out;
}

/**
 * Character ranges [start, end) of credentials given in prose in `text`: values after password words in the
 * seven languages, after a qualified password or secret word ("password for the admin panel is X", "el client_secret
 * de la API es X"), the password of a `login … user / password` pair (or a `user / password` pair of a well-known
 * account, or in a sentence about getting in: 入れます, get in, войти) or of `user X pass Y`, and "with X as the
 * password". Pure, deterministic.
 */
export function passwordRanges(text: string): Array<[number, number]> {
  // Cheap literal tests first: most texts hold no cue word, and the full patterns test a boundary at every position.
  const pw = PW_HINT.test(text);
  const login = LOGIN_HINT.test(text);
  const account = text.includes(" / ") && ACCOUNT_HINT.test(text);
  const accountColon = ACCOUNT_COLON_HINT.test(text);
  const entry = text.includes(" / ") && ENTRY_VERB.test(text);
  const namedKey = /key\s*[:：]/iu.test(text);
  if (!pw && !login && !account && !entry && !accountColon && !namedKey) return [];
  return [
    ...(entry ? typedRanges(text, PAIR_RE, 1, 6) : []),
    ...(pw ? wordRanges(text) : []),
    ...(pw && QUALIFIED_HINT.test(text) ? qualifiedRanges(text) : []),
    ...(namedKey ? namedKeyRanges(text) : []),
    ...(login && text.includes("/") ? typedRanges(text, LOGIN_SLASH_RE, 1, 6) : []),
    ...(account ? typedRanges(text, ACCOUNT_SLASH_RE, 1, 6) : []),
    ...(accountColon ? typedRanges(text, ACCOUNT_COLON_RE, 1, 6).filter(([a, b]) => /\p{L}/u.test(text.slice(a, b)) && /[^\p{L}]/u.test(text.slice(a, b))) : []),
    ...(login && /[/:]/.test(text) ? typedRanges(text, LOGIN_TIGHT_SLASH_RE, 1, 6).filter(([a, b]) => /\p{N}/u.test(text.slice(a, b))) : []),
    ...(login && /[/:]/.test(text) ? typedRanges(text, LOGIN_AS_RE, 1, 6).filter(([a, b]) => /\p{N}/u.test(text.slice(a, b))) : []),
    ...(login ? typedRanges(text, LOGIN_PASS_RE, 1) : []),
    ...(pw && / as /i.test(text) ? typedRanges(text, AS_PASSWORD_RE, 1) : []),
  ];
}
