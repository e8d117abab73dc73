/**
 * The shapes our own redaction layer looks for (redact.ts applies them; prose credentials live in
 * credential-prose.ts). Pure data: each pattern names the capture group to redact. Prefixes are the
 * providers' documented token formats; the fake corpus in tests/fixtures/memory/secrets.ts has one
 * sentence per shape and the tests in tests/memory/redact.test.ts run every one of them.
 */

/**
 * How a captured value is vetted: `kv` any 3+ characters; `word` 6+ characters that are not an ordinary word
 * ("password is required"); `weak` 8+ characters mixing classes with a digit; `flag` a flag's value that is not
 * a path or a `key=value` option; `token` a `weak` value with a run of 10+ letters and digits mixed (so
 * `tenant-2024-region` is an identifier, not a token); `blob` a 40+ character mixed-case-and-digit string of >= 4 bits per character;
 * `short` 6+ letters and digits switching between the two at least twice (`k8Jd93kL`, not `sha256` or `oauth2`); `typed` a
 * value with a digit, an inner capital or a symbol (`abc123`, not the word `token`).
 */
export type Vet = "kv" | "word" | "weak" | "token" | "flag" | "blob" | "short" | "typed";

/** One shape: a global regex with indices (`d` flag), the group to redact (0 = whole match), and how to vet the value. */
export interface SecretPattern {
  name: string;
  re: RegExp;
  /** Capture group to redact (default 0: the whole match). */
  group?: number;
  /** How the captured value is vetted before redaction (redact.ts looksSecret); default: always a secret. */
  vet?: Vet;
  /** A cheap test every match needs (a literal it contains); a text failing it skips the pattern. */
  hint?: RegExp;
}

/** STRONG_WORD and WEAK_WORD as plain alternations (no boundaries): the hint of the patterns built on them. */
const WORD_HINT = /pass|pwd|secret|private|credential|contraseña|passwort|kennwort|mot de passe|пароль|密码|密碼|パスワード|비밀번호|token|key|cookie|session|dsn|токен|ключ|schlüssel|トークン|キー|鍵|令牌|密钥|秘钥|키/iu;

/** Words after which any value is a secret (passwords). */
export const STRONG_WORD =
  "(?:pass(?:word|wd|phrase)|pwd|passcode|client[-_ ]?secret|secret|private[-_ ]?key|credentials?|contraseña|passwort|kennwort|mot de passe|пароль|密码|密碼|パスワード|비밀번호)";
/** Words after which only a token-looking value (digits or mixed case, >= 8 chars) is a secret. */
export const WEAK_WORD =
  "(?:token|api[-_ ]?key|apikey|access[-_ ]?key|auth[-_ ]?token|session[-_ ]?(?:id|key)|cookie|signing[-_ ]?key|account[-_ ]?key|key|dsn|токен|ключ|schlüssel|トークン|キー|鍵|令牌|密钥|秘钥|키)";

/**
 * Access key ids of the clouds whose secret comes as a second token: AWS (AKIA/ASIA/... + 16), Alibaba Cloud
 * (LTAI + 12..24), Tencent Cloud (AKID + 32), Google Cloud Storage HMAC (GOOG1 + 20+), DigitalOcean Spaces
 * (DO + 18 uppercase/digits with a digit).
 */
const KEY_ID =
  "(?:(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}|LTAI[A-Za-z0-9]{12,24}|AKID[A-Za-z0-9]{32}|GOOG1[A-Z0-9]{20,60}|DO(?=[A-Z]*[0-9])[0-9A-Z]{18})";

/** Own patterns. Sources: provider token-format docs for the prefixes, RFC 7519 (JWT), RFC 7468 (PEM). */
export const PATTERNS: SecretPattern[] = [
  // PEM blocks, raw or inside JSON with escaped newlines (a Google service-account key file).
  { name: "pem-private-key", re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/dg },
  { name: "jwt", re: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/dg },
  // Cloud key ids, and the secret that follows one after whitespace, a colon or a comma ("AKIA... wJalr...").
  { name: "cloud-key-id", re: new RegExp(`\\b${KEY_ID}\\b`, "dg"), hint: /AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|LTAI|AKID|GOOG1|DO[0-9A-Z]/ },
  {
    name: "cloud-key-pair",
    re: new RegExp(`\\b${KEY_ID}(?:\\s*[:,;/|]\\s*|\\s+)(?:(?:and\\s+)?(?:the\\s+)?(?:secret(?:[ _-]?(?:access[ _-]?)?key)?|secretkey|key)\\s*(?:is\\s+)?[:=]?\\s*)?["'\`]?([A-Za-z0-9/+=]{28,64})(?![A-Za-z0-9/+=])`, "dgi"),
    group: 1,
    hint: /AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|LTAI|AKID|GOOG1|DO[0-9A-Z]/,
  },
  { name: "aws-mws", re: /\bamzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/dg },
  { name: "github-token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/dg },
  { name: "gitlab-token", re: /\bgl(?:pat|dt|ptt|rt|cbt|soat|ffct|agent|imt)-[A-Za-z0-9_-]{20,}/dg },
  { name: "slack-token", re: /\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/dg },
  { name: "slack-webhook", re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/dg },
  { name: "discord-webhook", re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]+/dg },
  { name: "teams-webhook", re: /https:\/\/[A-Za-z0-9-]+\.webhook\.office\.com\/webhookb2\/\S+/dg },
  { name: "stripe-key", re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/dg },
  { name: "stripe-webhook-secret", re: /\bwhsec_[A-Za-z0-9]{16,}/dg },
  { name: "openai-anthropic-key", re: /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/dg },
  { name: "google-api-key", re: /\bAIza[0-9A-Za-z_-]{35}/dg },
  { name: "google-oauth-token", re: /\bya29\.[0-9A-Za-z_-]{20,}/dg },
  { name: "google-oauth-client-secret", re: /\bGOCSPX-[A-Za-z0-9_-]{28}/dg },
  { name: "google-refresh-token", re: /\b1\/\/0[A-Za-z0-9_-]{30,}/dg },
  { name: "azure-entra-client-secret", re: /\b[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}/dg },
  { name: "azure-conn-key", re: /\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|SharedSecretValue)=([^;\s"']{20,})/dg, group: 1 },
  { name: "npm-token", re: /\bnpm_[A-Za-z0-9]{36}\b/dg },
  { name: "npmrc-auth", re: /(?<![A-Za-z0-9])_auth(?:Token)?\s*=\s*([^\s"']{8,})/dg, group: 1 },
  { name: "pypi-token", re: /\bpypi-[A-Za-z0-9_-]{50,}/dg },
  { name: "rubygems-key", re: /\brubygems_[a-f0-9]{48}\b/dg },
  { name: "sendgrid-key", re: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/dg },
  { name: "twilio-key", re: /\b(?:SK|AC)[0-9a-f]{32}\b/dg },
  { name: "mailgun-key", re: /\bkey-[0-9a-zA-Z]{32}\b/dg },
  { name: "mailchimp-key", re: /\b[0-9a-f]{32}-us\d{1,2}\b/dg },
  { name: "shopify-token", re: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/dg },
  { name: "digitalocean-token", re: /\bdo[por]_v1_[a-f0-9]{64}\b/dg },
  { name: "huggingface-token", re: /\bhf_[A-Za-z0-9]{30,}\b/dg },
  { name: "discord-bot-token", re: /\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}/dg },
  { name: "telegram-bot-token", re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/dg },
  { name: "heroku-key", re: /\bHRKU-[A-Za-z0-9_-]{30,}/dg },
  { name: "cloudflare-origin-ca", re: /\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b/dg },
  { name: "newrelic-key", re: /\bNR(?:AK|AA|II|JS)-[A-Z0-9]{19,27}\b/dg },
  { name: "sentry-token", re: /\bsntr[ysu]_[A-Za-z0-9_=+/-]{30,}/dg },
  { name: "atlassian-token", re: /\bATATT[A-Za-z0-9_=-]{20,}/dg },
  { name: "bitbucket-token", re: /\bATBB[A-Za-z0-9_=-]{20,}/dg },
  { name: "linear-key", re: /\blin_(?:api|oauth)_[A-Za-z0-9]{32,}/dg },
  { name: "notion-token", re: /\b(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})\b/dg },
  { name: "airtable-pat", re: /\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b/dg },
  { name: "postman-key", re: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/dg },
  { name: "vault-token", re: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/dg },
  { name: "terraform-cloud-token", re: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}/dg },
  { name: "grafana-token", re: /\b(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/=_-]{32,})/dg },
  { name: "databricks-token", re: /\bdapi[a-f0-9]{32}(?:-\d)?\b/dg },
  { name: "docker-hub-token", re: /\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}/dg },
  { name: "square-token", re: /\b(?:sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{22,43}|EAAA[A-Za-z0-9_-]{60})/dg },
  { name: "fcm-server-key", re: /\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}/dg },
  { name: "age-secret-key", re: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/dg },
  { name: "groq-key", re: /\bgsk_[A-Za-z0-9]{48,}/dg },
  { name: "replicate-token", re: /\br8_[A-Za-z0-9]{37}\b/dg },
  { name: "langsmith-key", re: /\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b/dg },
  { name: "tailscale-key", re: /\btskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}/dg },
  { name: "planetscale-token", re: /\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,}/dg },
  { name: "supabase-token", re: /\bsbp_[a-f0-9]{40}\b/dg },
  { name: "doppler-token", re: /\bdp\.(?:st|pt|ct|sa|scim|audit)\.[A-Za-z0-9._-]{40,}/dg },
  { name: "mapbox-secret", re: /\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/dg },
  { name: "jfrog-key", re: /\bAKCp[A-Za-z0-9]{69}\b/dg },
  { name: "auth-header", re: /\b(?:Bearer|Basic|Token|Bot|SSWS|Digest)\s+([A-Za-z0-9._~+/=-]{12,})/dg, group: 1 },
  { name: "url-password", re: /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{0,256}:([^\s@/]{1,256})@/dgi, group: 1, hint: /:\/\// },
  { name: "url-query-secret", re: /[?&;](?:sig|signature|token|access_token|api_key|apikey|key|secret|password|pwd|auth|code)=([^&\s#;]{6,})/dgi, group: 1 },
  { name: "curl-user", re: /(?:^|\s)(?:-u|--user)\s+[^\s:]+:(\S+)/dg, group: 1, hint: /-u|--user/ },
  // host:port:database:user:password (~/.pgpass); the host must look like one.
  { name: "pgpass-line", re: /\b(?:localhost|[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}|\*):(?:\d{1,5}|\*):[\w*.-]+:[\w*.-]+:(\S{4,})/dg, group: 1, hint: /:(?:\d{1,5}|\*):/ },
  // Command-line passwords: mysql -pSECRET (attached), sshpass/docker login -p SECRET, --password SECRET.
  { name: "mysql-p", re: /\bmysql\w*\b[^\n|;&]{0,200}?\s-p([^\s-]\S*)/dg, group: 1, hint: /mysql/ },
  { name: "login-p", re: /\b(?:sshpass|(?:docker|podman|nerdctl|buildah|skopeo|oras|helm\s+registry)\s+login)\b[^\n|;&]{0,200}?\s(?:-p|--password)(?:=|\s+)([^\s-]\S*)/dg, group: 1, hint: /login|sshpass/ },
  {
    name: "secret-flag",
    re: /(?:^|\s)--?(?:password|passwd|pass|pwd|token|api-?key|apikey|secret|client-secret|access-key|secret-key|secret-access-key|auth-token|private-key|access-token)(?:=|\s+)["'`]?([^\s"'`-][^\s"'`]*)/dgi,
    group: 1,
    vet: "flag",
    hint: /-(?:pass|pwd|token|api|secret|client|access|auth|private)/i,
  },
  // "Azure DevOps PAT: ..." (case-sensitive PAT: "path:" must not count).
  { name: "pat-word", re: /\b(?:PAT|[Pp]ersonal [Aa]ccess [Tt]oken)s?\b[\s:=]+(?:is\s+)?["'`]?([A-Za-z0-9_]{20,})/dg, group: 1, vet: "weak", hint: /PAT|ersonal/ },
  {
    name: "kv-pass",
    re: /(?:\b[A-Za-z0-9_.-]{0,40}[_.-]pass|\bpass)\b["']?\s*(?:=|:=|=>|:(?=\s*\S*\d))\s*("[^"\n]{3,200}"|'[^'\n]{3,200}'|[^\s"'`,;]{3,})/dgi,
    group: 1,
    vet: "kv",
    hint: /pass/i,
  },
  {
    name: "kv-strong",
    re: new RegExp(`\\b[A-Za-z0-9_.-]{0,40}${STRONG_WORD}[A-Za-z0-9_.-]{0,40}["']?\\s*(?:=|:=|:|=>)\\s*("[^"\\n]{3,200}"|'[^'\\n]{3,200}'|[^\\s"'\`,;]{3,})`, "dgiu"),
    group: 1,
    vet: "kv",
    hint: WORD_HINT,
  },
  {
    name: "kv-weak",
    re: new RegExp(`\\b[A-Za-z0-9_.-]{0,40}${WEAK_WORD}[A-Za-z0-9_.-]{0,40}["']?\\s*(?:=|:=|:|=>)\\s*("[^"\\n]{3,}"|'[^'\\n]{3,}'|[^\\s"'\`,;]{3,})`, "dgiu"),
    group: 1,
    vet: "weak",
    hint: WORD_HINT,
  },
  {
    name: "strong-word-then-value",
    re: new RegExp(`${STRONG_WORD}\\s+(?:is|was|=|:|es|ist|est|это|是|は)\\s*[\`"']?([^\\s\`"',;]{6,})`, "dgiu"),
    group: 1,
    vet: "word",
    hint: WORD_HINT,
  },
  {
    name: "weak-word-then-token",
    re: new RegExp(`${WEAK_WORD}\\s+(?:is|was|to|of|=|:|es|ist|est|это|是|は)?\\s*[\`"']?([A-Za-z0-9+/_.~!@#$%^&*=-]{8,})`, "dgiu"),
    group: 1,
    vet: "weak",
    hint: WORD_HINT,
  },
  // CJK and Korean words take their particle without a space: "API キーは X", "密钥是X", "토큰은 X".
  {
    name: "cjk-word-then-token",
    re: /(?:トークン|キー|鍵|令牌|密钥|秘钥|密鑰|키|토큰|시크릿)\s*(?:は|が|是|为|為|는|은|:|：)?\s*[`"']?([A-Za-z0-9+/_.~=-]{8,})/dgu,
    group: 1,
    vet: "weak",
  },
  // A token after a secret word and a qualifier of 1 to 4 words: "Токен деплоя X", "client secret de OAuth es X".
  {
    name: "qualified-word-then-token",
    re: new RegExp(`(?:${STRONG_WORD}|${WEAK_WORD})(?:\\s+[\\p{L}-]+){1,4}?(?:\\s*[:=：]|\\s+(?:is|was|es|ist|lautet|est|это|—))?\\s*[\`"']?([A-Za-z0-9+/_.~=-]{12,})`, "dgiu"),
    group: 1,
    vet: "token",
    hint: WORD_HINT,
  },
  // A token right after "auth" ("Twilio … auth 9f8e…"): "auth token" is a WEAK_WORD above, bare "auth" is not (it is too
  // often part of a name: "author", "OAuth").
  {
    name: "auth-word-then-token",
    re: /(?<![A-Za-z])auth\s+(?:is\s+)?(?:[:=]\s*)?["'`]?([A-Za-z0-9+/_.~=-]{16,})/dgi,
    group: 1,
    // "token": a run of 10+ mixed letters and digits, so a path after "auth" ("auth middleware/v2/session.ts") is not one.
    vet: "token",
    hint: /auth/i,
  },
  // A short token (6+ characters) after "auth" or "token" ("auth sk8Jd…", "auth is 7fG2…"): only letters and digits that
  // switch back and forth (vet "short"), so "auth oauth2", "token sha256" and "auth middleware/v2" stay (issue 13).
  {
    name: "auth-word-then-short",
    re: /(?<![A-Za-z])(?:auth|token)\s+(?:is\s+)?(?:[:=]\s*)?["'`]?([A-Za-z0-9_-]{6,})(?![A-Za-z0-9_-]|[./][A-Za-z0-9])/dgi,
    group: 1,
    vet: "short",
    hint: /auth|token/i,
  },
  // Anything typed after "Bearer" ("Authorization: Bearer abc123"): a header value of any length; "Bearer token" is prose.
  { name: "bearer-short", re: /\bBearer\s+([A-Za-z0-9_~+/=-]+(?:\.[A-Za-z0-9_~+/=-]+)*)/dgi, group: 1, vet: "typed", hint: /bearer/i },
  // NAME=value where the name holds SALT, SIGNING, AUTH or PRIVATE (JWT_SIGNING, ENCRYPTION_SALT, SERVICE_AUTH): a
  // token-looking value is a secret, a plain one (AUTH_PROVIDER=keycloak, SIGNING_ALG=RS256) is not.
  {
    name: "kv-secretish-name",
    // A URL or a path (AUTH_URL=https://…, PRIVATE_KEY_FILE=./keys/ci.pem) names where a secret is, it is not one.
    re: /\b[A-Za-z0-9_.-]{0,40}(?:salt|signing|auth(?!or|en)|private)[A-Za-z0-9_.-]{0,40}["']?\s*(?:=|:=|:|=>)\s*(?![A-Za-z][A-Za-z0-9+.-]*:\/\/|[./~])("[^"\n]{3,}"|'[^'\n]{3,}'|[^\s"'`,;]{3,})/dgi,
    group: 1,
    vet: "weak",
    hint: /salt|signing|auth|private/i,
  },
  { name: "email", re: /\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b/dg, hint: /@/ },
  { name: "high-entropy-blob", re: /\b[A-Za-z0-9+/_-]{40,}={0,2}/dg, vet: "blob" },
];
