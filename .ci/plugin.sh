#!/usr/bin/env bash
# Plugin checks for CI (called by .ci/run; works in a fresh clone after `npm ci`, no network needed):
#  1. claude plugin validate --strict on the marketplace, on the repository's plugin manifest and on the
#     plugin folder the marketplace installs (plugins/knowledge-triage: hooks.json, skills included)
#  2. skills-ref validate on skills/knowledge-triage and on the top-level SKILL.md (same bytes)
#  3. the end-to-end tests (tests/e2e): the real Claude Code CLI, offline, against the mock Messages API;
#     plugin installed from this repo as a local marketplace + manual /compact, and install.sh --scope project
#     + an automatic compaction. Inside a private network namespace when
#     `unshare -n` is allowed (root), so nothing can leave the machine.
# Skips steps 1 and 3 with a message only when node_modules/.bin/claude is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd -P)
CLAUDE="$ROOT/node_modules/.bin/claude"
FAIL=0
step() { printf '\n== %s\n' "$*"; }

[ -f dist/triage.mjs ] || { step "dist/triage.mjs missing: building"; node scripts/build/build.mjs; }

step "claude plugin validate --strict"
if [ -x "$CLAUDE" ]; then
  "$CLAUDE" --version
  "$CLAUDE" plugin validate --strict . || FAIL=1
  "$CLAUDE" plugin validate --strict .claude-plugin/plugin.json || FAIL=1
  "$CLAUDE" plugin validate --strict plugins/knowledge-triage || FAIL=1
  # The marketplace installs ./plugins/knowledge-triage: real files (npm run build copies them), no links.
  for F in .claude-plugin/plugin.json .mcp.json hooks/hooks.json dist/triage.mjs dist/mcp.mjs model/model.json model/utterance.json skills/knowledge-triage/SKILL.md skills/knowledge-triage/references/memory.md commands/status.md commands/pin.md commands/forget.md commands/dig.md; do
    [ -f "plugins/knowledge-triage/$F" ] && [ ! -L "plugins/knowledge-triage/$F" ] || { echo "missing or a link: plugins/knowledge-triage/$F"; FAIL=1; }
  done
  LINKS=$(find plugins/knowledge-triage -type l)
  [ -z "$LINKS" ] || { echo "symbolic links in the plugin folder: $LINKS"; FAIL=1; }
else
  echo "SKIP: $CLAUDE not found (npm ci installs the devDependency @anthropic-ai/claude-code)"
fi

step "skills-ref validate"
npx --no-install skills-ref validate skills/knowledge-triage || FAIL=1
npx --no-install skills-ref validate plugins/knowledge-triage/skills/knowledge-triage || FAIL=1
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/knowledge-triage" && cp SKILL.md "$TMP/knowledge-triage/SKILL.md"
npx --no-install skills-ref validate "$TMP/knowledge-triage" || FAIL=1
cmp -s SKILL.md skills/knowledge-triage/SKILL.md || { echo "SKILL.md and skills/knowledge-triage/SKILL.md differ"; FAIL=1; }

step "end-to-end: real Claude Code session with the plugin (tests/e2e)"
if [ -x "$CLAUDE" ]; then
  if [ "${KNOWLEDGE_TRIAGE_NETNS:-1}" = 1 ] && command -v ip >/dev/null 2>&1 && unshare -n ip link set lo up 2>/dev/null; then
    echo "(running in a private network namespace: loopback only)"
    unshare -n bash -c 'ip link set lo up && exec npx --no-install vitest run tests/e2e' || FAIL=1
  else
    npx --no-install vitest run tests/e2e || FAIL=1
  fi
else
  echo "SKIP: end-to-end test needs $CLAUDE"
fi

[ "$FAIL" = 0 ] && echo "plugin checks passed" || echo "plugin checks FAILED"
exit "$FAIL"
