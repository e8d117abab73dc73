#!/usr/bin/env bash
# Remove exactly what install.sh added.
#   ./uninstall.sh [--scope trial|project|user] [--project DIR] [--purge]
# Without --scope, all three settings files are cleaned. Only hooks that run THIS checkout's
# dist/triage.mjs are removed; a settings file left empty by that is deleted. For trial, the two
# .gitignore lines install.sh appended are removed. --purge also deletes what Knowledge Triage wrote in
# the chosen scope's rules folder (trial, project or none: <project>/.claude/rules/knowledge-triage/;
# user: ~/.claude/rules/knowledge-triage/, the user-level rules, only when --scope user is given): the
# .state folder and the rule files its sidecar records, unchanged since; any other file there is kept.
# Never asks questions; prints what it changed.
set -euo pipefail

die() { echo "uninstall.sh: $*" >&2; exit 1; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
SCOPE="" PROJECT="$PWD" PURGE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --scope) [ $# -ge 2 ] || die "--scope needs a value"; SCOPE=$2; shift 2 ;;
    --scope=*) SCOPE=${1#--scope=}; shift ;;
    --project) [ $# -ge 2 ] || die "--project needs a value"; PROJECT=$2; shift 2 ;;
    --project=*) PROJECT=${1#--project=}; shift ;;
    --purge) PURGE=1; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
command -v node >/dev/null 2>&1 || die "node not found on PATH"
[ -d "$PROJECT" ] || die "project folder not found: $PROJECT"
PROJECT=$(cd "$PROJECT" && pwd -P)
BUNDLE="$ROOT/dist/triage.mjs"
USER_DIR="${CLAUDE_CONFIG_DIR:-$HOME/.claude}"
# Same rule as the hooks (scripts/io/project-folders.ts notAProjectFolder): / and the home folder are no project.
if [ "$SCOPE" != user ]; then
  HOME_REAL=$(cd "$HOME" 2>/dev/null && pwd -P || echo "$HOME")
  [ "$PROJECT" != / ] || die "the project folder is the filesystem root, not a project (give --project DIR, or --scope user)"
  [ "$PROJECT" != "$HOME_REAL" ] || die "the project folder $PROJECT is the home folder, not a project (give --project DIR, or --scope user)"
fi

case "$SCOPE" in
  trial) SCOPES="trial" ;; project) SCOPES="project" ;; user) SCOPES="user" ;;
  "") SCOPES="trial project user" ;;
  *) die "--scope must be trial, project or user (got '$SCOPE')" ;;
esac

for S in $SCOPES; do
  case "$S" in
    trial) FILE="$PROJECT/.claude/settings.local.json" ;;
    project) FILE="$PROJECT/.claude/settings.json" ;;
    user) FILE="$USER_DIR/settings.json" ;;
  esac
  node "$ROOT/scripts/install/settings-merge.mjs" remove "$FILE" "$BUNDLE"
  if [ "$S" = trial ] && [ -f "$PROJECT/.gitignore" ] && grep -q "^# knowledge-triage install.sh --scope trial" "$PROJECT/.gitignore"; then
    node -e '
      const fs = require("fs"); const f = process.argv[1];
      const MARK = "# knowledge-triage install.sh --scope trial";
      const lines = fs.readFileSync(f, "utf8").split("\n"); const out = []; let nl = false;
      for (let i = 0; i < lines.length; i++) {
        if (lines[i].startsWith(MARK) && lines[i + 1] === ".claude/settings.local.json") {
          if (lines[i].endsWith("(added a final newline)")) nl = true;
          i++; continue;
        }
        out.push(lines[i]);
      }
      let text = out.join("\n");
      if (nl && text.endsWith("\n")) text = text.slice(0, -1);
      if (text.trim() === "") fs.rmSync(f); else fs.writeFileSync(f, text);
    ' "$PROJECT/.gitignore"
    echo "- $PROJECT/.gitignore: .claude/settings.local.json (added by install.sh)"
  fi
done

if [ "$PURGE" = 1 ]; then
  # Only the chosen scope's rules folder: purging one project must never delete the user-level rules.
  if [ "$SCOPE" = user ]; then D="$USER_DIR/rules/knowledge-triage"; else D="$PROJECT/.claude/rules/knowledge-triage"; fi
  if [ -e "$D" ] || [ -L "$D" ]; then node "$ROOT/scripts/install/purge.mjs" "$D"; fi
  U="$USER_DIR/rules/knowledge-triage"
  if [ "$SCOPE" != user ] && { [ -e "$U" ] || [ -L "$U" ]; }; then
    echo "= kept $U: user-level rules (purge them with --scope user --purge)"
  fi
fi
echo "Knowledge Triage hooks removed (scope: ${SCOPE:-all})."
