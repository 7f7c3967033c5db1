#!/usr/bin/env bash
# Install the agent harnesses that the harness tests drive (integrations/harness-tests/): the
# Claude Code CLI and the Codex CLI, at the versions pinned in that folder's package-lock.json,
# with `npm ci` into a folder outside the source tree:
#   ${GOS_HARNESS_DIR:-${CARGO_TARGET_DIR:-target}/harnesses}
# Idempotent: an install made from the same lock file whose binaries still run is kept. Fails
# loudly (non-zero, the reason on stderr) when npm, the registry or a binary is missing.
# Prints the harness folder on stdout, the last line, for callers.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/integrations/harness-tests"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
dest="${GOS_HARNESS_DIR:-$target_dir/harnesses}"

die() {
    echo "setup-harnesses: $*" >&2
    exit 1
}
command -v node >/dev/null || die "node is not installed (the harnesses install with npm; Node 20 or newer)"
command -v npm >/dev/null || die "npm is not installed"

lock_sum="$(sha256sum "$src/package-lock.json" "$src/package.json" | sha256sum | cut -d' ' -f1)"
stamp="$dest/.installed-from"
claude="$dest/node_modules/.bin/claude"
codex="$dest/node_modules/.bin/codex"

# What the lock file pins, to check the installed binaries against.
want_claude="$(node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/@anthropic-ai/claude-code"].version)' "$src/package-lock.json")"
want_codex="$(node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/@openai/codex"].version)' "$src/package-lock.json")"

# The harnesses must never read or write the real user's config, even here.
check_env=(env -i PATH="$PATH" HOME="$dest/.check-home" DISABLE_AUTOUPDATER=1
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CODEX_HOME="$dest/.check-home/.codex")

versions_ok() {
    [ -x "$claude" ] && [ -x "$codex" ] || return 1
    mkdir -p "$dest/.check-home/.codex"
    local c x
    c="$(timeout 60 "${check_env[@]}" "$claude" --version 2>/dev/null)" || return 1
    x="$(timeout 60 "${check_env[@]}" "$codex" --version 2>/dev/null)" || return 1
    [[ "$c" == "$want_claude"* ]] && [[ "$x" == *"$want_codex"* ]]
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_sum" ] && versions_ok; then
    echo "$dest"
    exit 0
fi

mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
rm -f "$stamp"
echo "setup-harnesses: npm ci into $dest (Claude Code $want_claude, Codex $want_codex)" >&2
# Claude Code's postinstall copies its native binary over the bin/ placeholder; the package
# declares Node >= 22 but runs no JavaScript after that, so Node 20 is enough (the engine
# warning is expected).
if ! (cd "$dest" && timeout 900 npm ci --no-audit --no-fund --loglevel=error >&2); then
    die "npm ci failed in $dest (is the npm registry reachable?)"
fi
versions_ok || die "installed, but the binaries do not report the pinned versions: \
claude: $(timeout 60 "${check_env[@]}" "$claude" --version 2>&1 | head -1), \
codex: $(timeout 60 "${check_env[@]}" "$codex" --version 2>&1 | head -1) \
(want $want_claude and $want_codex)"
echo "$lock_sum" >"$stamp"
echo "$dest"
