#!/usr/bin/env bash
# Installs a CUDA toolkit (nvcc, the CUDA headers and libraries) from Debian's own archive, so
# that `cargo build --release -p gos-cli --features cuda` can compile on a Debian 12 (bookworm)
# machine, with or without a GPU. Running the binary on a GPU also needs an NVIDIA driver, which
# this script does not install.
#
# What it does, and nothing else:
#   1. writes /etc/apt/sources.list.d/gos-non-free.sources, a sources file of its own that
#      enables bookworm's `contrib` and `non-free` components (nvidia-cuda-toolkit is in
#      non-free, some of its dependencies in contrib). The system's own sources files are never
#      edited; the mirror and keyring are those of the system's bookworm entry.
#   2. `apt-get update`, then `apt-get install nvidia-cuda-toolkit` (CUDA 11.8 on bookworm; 1.6 GB
#      downloaded, 5.5 GB installed, 65 packages, about 3.5 minutes) with `gcc-11` / `g++-11`: nvcc
#      11.8 accepts host compilers up to gcc 11 only. Debian's nvcc finds gcc-11 by itself (its
#      /usr/lib/nvidia-cuda-toolkit/bin/gcc wrapper); gcc 12, the system default, is refused.
#      The toolkit also pulls the NVIDIA driver's user-space libcuda1 (no kernel module).
#   3. prints `nvcc --version` and the environment the cuda build needs.
#
# Idempotent: a second run finds the sources file and the packages in place and changes nothing.
# Needs root (or sudo). Fails loudly: any failing step stops the script with a message.
#
#   scripts/setup-cuda.sh            # install
#   scripts/setup-cuda.sh --check    # only report what is there, change nothing
set -euo pipefail

say() { printf 'setup-cuda: %s\n' "$*"; }
die() { printf 'setup-cuda: ERROR: %s\n' "$*" >&2; exit 1; }
trap 'die "command failed (line $LINENO): $BASH_COMMAND"' ERR

CHECK_ONLY=0
case "${1:-}" in
  --check) CHECK_ONLY=1 ;;
  "") ;;
  -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
  *) die "unknown argument '$1' (use --check or nothing)" ;;
esac

SOURCES=/etc/apt/sources.list.d/gos-non-free.sources

[ -r /etc/os-release ] || die "no /etc/os-release: not a Debian system?"
. /etc/os-release
[ "${ID:-}" = debian ] || die "this script is for Debian (found ID=${ID:-unknown}); on Ubuntu use NVIDIA's or Ubuntu's cuda packages"
CODENAME="${VERSION_CODENAME:-}"
[ "$CODENAME" = bookworm ] || say "warning: written for bookworm, this is '$CODENAME'; trying anyway"

report() {
  if command -v nvcc >/dev/null 2>&1; then
    say "nvcc: $(command -v nvcc)"
    nvcc --version | sed 's/^/setup-cuda:   /'
  else
    say "nvcc: not installed"
  fi
  for cc in g++-11 g++-12 g++; do
    if command -v "$cc" >/dev/null 2>&1; then say "host compiler $cc: $("$cc" -dumpfullversion)"; fi
  done
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    say "GPU: $(nvidia-smi -L | head -n1)"
  else
    say "GPU: none visible (building works without one; running --device cuda needs a GPU and driver)"
  fi
}

if [ "$CHECK_ONLY" = 1 ]; then
  [ -f "$SOURCES" ] && say "$SOURCES present" || say "$SOURCES absent"
  report
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || die "must run as root (no sudo found)"
  SUDO=sudo
fi

# 1. The sources file. Mirror and keyring: those of the system's own main archive entry (deb822
#    debian.sources, or a one-line entry in sources.list), so that no other mirror is named.
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
URI=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  URI=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$URI" ] && [ -f /etc/apt/sources.list ]; then
  URI=$(awk -v c="$CODENAME" '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i+1) == c) { print $i; exit } } }' /etc/apt/sources.list)
fi
[ -n "$URI" ] || die "found no $CODENAME main archive entry in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list to take the mirror from"
[ -f "$KEYRING" ] || die "missing $KEYRING (package debian-archive-keyring)"

WANT=$(cat <<EOF
# Written by gos scripts/setup-cuda.sh: Debian's contrib and non-free components, for
# nvidia-cuda-toolkit. Remove this file to undo.
Types: deb
URIs: $URI
Suites: $CODENAME $CODENAME-updates
Components: contrib non-free
Signed-By: $KEYRING
EOF
)
UPDATED=0
if [ -f "$SOURCES" ] && [ "$(cat "$SOURCES")" = "$WANT" ]; then
  say "$SOURCES already in place"
else
  say "writing $SOURCES (contrib non-free for $CODENAME from $URI)"
  printf '%s\n' "$WANT" | $SUDO tee "$SOURCES" >/dev/null
  UPDATED=1
fi

# 2. The packages. apt-get update only when the sources changed or the toolkit is not known yet.
if [ "$UPDATED" = 1 ] || ! apt-cache show nvidia-cuda-toolkit >/dev/null 2>&1; then
  say "apt-get update"
  $SUDO apt-get update -q || die "apt-get update failed"
fi
apt-cache show nvidia-cuda-toolkit >/dev/null 2>&1 \
  || die "nvidia-cuda-toolkit is not in the package lists even with non-free enabled"

PKGS=(nvidia-cuda-toolkit)
# nvcc 11.8 supports gcc <= 11 as host compiler; bookworm has gcc-11 in main.
if apt-cache show g++-11 >/dev/null 2>&1; then PKGS+=(gcc-11 g++-11); fi

MISSING=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || MISSING+=("$p")
done
if [ "${#MISSING[@]}" = 0 ]; then
  say "already installed: ${PKGS[*]}"
else
  say "installing: ${MISSING[*]} (nvidia-cuda-toolkit is a large download; this takes minutes)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${MISSING[@]}" \
    || die "apt-get install ${MISSING[*]} failed"
fi

command -v nvcc >/dev/null 2>&1 || die "nvcc is still not on PATH after the install"
nvcc --version >/dev/null || die "nvcc --version fails"

# 3. Report, and the build environment (docs/notes/speed-prep.md explains each variable).
report
cat <<'EOF'
setup-cuda: to build the CUDA feature (no GPU needed at build time; docs/notes/speed-prep.md):
setup-cuda:   export CUDA_COMPUTE_CAP=80   # no GPU to ask; 90 fails with CUDA 11.8 (candle asks for sm_90a)
setup-cuda:   CARGO_TARGET_DIR=/work/target-cuda cargo build --release -p gos-cli --features cuda
setup-cuda: the binary needs libcuda.so.1, libcublas.so.11, libcurand.so.10 and libcudart.so.11.0 at start
EOF
say "done"
