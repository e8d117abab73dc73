#!/usr/bin/env bash
# Install the Knowledge Triage hooks into Claude Code settings (the alternative to the plugin install).
#   ./install.sh [--scope trial|project|user] [--project DIR]
# trial   -> <project>/.claude/settings.local.json (personal, and made sure to be gitignored)
# project -> <project>/.claude/settings.json       (shared with the team, commit it)
# user    -> ~/.claude/settings.json                ($CLAUDE_CONFIG_DIR if set; every project)
# Asks for the scope on a terminal; without a terminal and without --scope it uses trial.
# Rules are always written to the project's .claude/rules/knowledge-triage/ (user-level rules with
# `paths:` are ignored by Claude Code, so path-scoped rules never go to ~/.claude/rules).
# Idempotent; merges JSON without touching other settings or hooks; prints what it changed.
set -euo pipefail

die() { echo "install.sh: $*" >&2; exit 1; }
usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
SCOPE="" PROJECT="$PWD"
while [ $# -gt 0 ]; do
  case "$1" in
    --scope) [ $# -ge 2 ] || die "--scope needs a value"; SCOPE=$2; shift 2 ;;
    --scope=*) SCOPE=${1#--scope=}; shift ;;
    --project) [ $# -ge 2 ] || die "--project needs a value"; PROJECT=$2; shift 2 ;;
    --project=*) PROJECT=${1#--project=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

command -v node >/dev/null 2>&1 || die "node not found on PATH (Node 20 or newer is required)"
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
[ "$NODE_MAJOR" -ge 20 ] || die "Node $NODE_MAJOR found; Node 20 or newer is required"
BUNDLE="$ROOT/dist/triage.mjs"
[ -f "$BUNDLE" ] || die "missing $BUNDLE (run: npm ci && npm run build)"
[ -d "$PROJECT" ] || die "project folder not found: $PROJECT"
PROJECT=$(cd "$PROJECT" && pwd -P)

if [ -z "$SCOPE" ]; then
  if [ -t 0 ] && [ -t 1 ]; then
    echo "Where should the Knowledge Triage hooks go?"
    echo "  1) trial   $PROJECT/.claude/settings.local.json (just you, this project)"
    echo "  2) project $PROJECT/.claude/settings.json (everyone on this project)"
    echo "  3) user    ${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json (you, every project)"
    read -r -p "Choice [1]: " ANSWER
    case "${ANSWER:-1}" in 1|trial) SCOPE=trial ;; 2|project) SCOPE=project ;; 3|user) SCOPE=user ;; *) die "no such choice: $ANSWER" ;; esac
  else
    SCOPE=trial
    echo "No terminal and no --scope: using --scope trial"
  fi
fi

case "$SCOPE" in
  trial) FILE="$PROJECT/.claude/settings.local.json" ;;
  project) FILE="$PROJECT/.claude/settings.json" ;;
  user) FILE="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json" ;;
  *) die "--scope must be trial, project or user (got '$SCOPE')" ;;
esac
# Same rule as the hooks (scripts/io/project-folders.ts notAProjectFolder): .claude/ of / or of the home folder is
# no project's (~/.claude is Claude Code's user level). --scope user writes no project file, so it is allowed there.
if [ "$SCOPE" != user ]; then
  HOME_REAL=$(cd "$HOME" 2>/dev/null && pwd -P || echo "$HOME")
  [ "$PROJECT" != / ] || die "the project folder is the filesystem root, not a project (give --project DIR, or --scope user)"
  [ "$PROJECT" != "$HOME_REAL" ] || die "the project folder $PROJECT is the home folder, not a project (give --project DIR, or --scope user)"
fi
mkdir -p "$(dirname "$FILE")"
FILE="$(cd "$(dirname "$FILE")" && pwd -P)/$(basename "$FILE")"

node "$ROOT/scripts/install/settings-merge.mjs" add "$FILE" "$BUNDLE"

if [ "$SCOPE" = trial ]; then
  # settings.local.json is personal: make sure git never picks it up.
  IGNORED=0
  if git -C "$PROJECT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$PROJECT" check-ignore -q .claude/settings.local.json && IGNORED=1
  elif [ -f "$PROJECT/.gitignore" ] && grep -qxF ".claude/settings.local.json" "$PROJECT/.gitignore"; then
    IGNORED=1
  fi
  if [ "$IGNORED" = 0 ]; then
    MARK="# knowledge-triage install.sh --scope trial"
    if [ -s "$PROJECT/.gitignore" ] && [ -n "$(tail -c1 "$PROJECT/.gitignore")" ]; then
      # The file had no final newline: add one, and say so in the marker so uninstall.sh can take it back.
      echo >> "$PROJECT/.gitignore"; MARK="$MARK (added a final newline)"
    fi
    printf '%s\n' "$MARK" ".claude/settings.local.json" >> "$PROJECT/.gitignore"
    echo "+ $PROJECT/.gitignore: .claude/settings.local.json"
  else
    echo "= .claude/settings.local.json is already gitignored"
  fi
fi

echo "Knowledge Triage hooks installed (scope: $SCOPE). Rules will be written to <project>/.claude/rules/knowledge-triage/."
if [ "$SCOPE" = user ]; then echo "Undo with: $ROOT/uninstall.sh --scope user"
else echo "Undo with: $ROOT/uninstall.sh --scope $SCOPE --project $PROJECT"; fi
