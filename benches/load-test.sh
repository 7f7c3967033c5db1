#!/usr/bin/env bash
# Load test of `gos serve` on loopback (docs/performance.md, "Serving under load").
#
#   benches/load-test.sh                     # defaults below
#   GOS_LOAD_WS=/path/ws GOS_LOAD_LIBRARY=/path/library benches/load-test.sh
#
# 1. copies the workspace GOS_LOAD_WS (default /work/eval/ws-vec, built from the real library with
#    all-MiniLM-L6-v2 vectors) to a scratch folder; the original is never touched;
# 2. starts the release `gos serve` on 127.0.0.1 (a free port);
# 3. measures in-process retrieve time: 40 sequential requests, the server's own
#    timings_ms.retrieve, plus the client-side round trip;
# 4. phase A: wrk, 16 connections (4 threads) for GOS_LOAD_SECS (30) seconds, latency percentiles;
# 5. phase B: the same wrk load for as long as it takes to rebuild the copy twice with
#    `gos build` (vectors reused) and have the server's reloader swap each one in, plus 5 s
#    (wrk is stopped with SIGINT, which makes it print its summary; at most GOS_SWAP_SECS, 900);
#    the generation must reach 3 and wrk must count no errors and no non-2xx answers;
# 6. phase C: 1 and 2 connections (2 = this machine's cores) for 10 s each: the latency of the
#    server when requests do not queue for a core.
# Bounded: wrk stops at its duration, every step has a timeout; loopback only. Needs wrk
# (apt-get install wrk) and python3.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${GOS_BIN:-$root/target/release/gos}"
src_ws="${GOS_LOAD_WS:-/work/eval/ws-vec}"
library="${GOS_LOAD_LIBRARY:-/work/shared/data/library}"
model_dir="${GOS_MODEL_DIR:-$root/models/all-MiniLM-L6-v2}"
secs="${GOS_LOAD_SECS:-30}"
swap_secs="${GOS_SWAP_SECS:-900}"
scratch="$(mktemp -d /tmp/gos-load.XXXXXX)"
log="$scratch/serve.log"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 2; }
[ -x "$bin" ] || { echo "no gos binary at $bin (cargo build --release -p gos-cli)" >&2; exit 2; }
[ -f "$src_ws/workspace.json" ] || { echo "SKIP: no workspace at $src_ws" >&2; exit 0; }

cp -a "$src_ws" "$scratch/ws"
"$bin" serve -w "$scratch/ws" --model-dir "$model_dir" --addr 127.0.0.1:0 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 600); do
    grep -q "listening on" "$log" && break
    sleep 0.1
done
base="$(grep -o 'http://[0-9.:]*' "$log" | head -1)"
[ -n "$base" ] || { cat "$log" >&2; exit 1; }
echo "server: $base ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"

python3 - "$base" <<'PY'
import json, statistics, sys, time, urllib.request
base = sys.argv[1]
qs = ["extract the tables from a scanned PDF invoice into an Excel spreadsheet",
      "reproject a GeoJSON file of districts to web mercator and draw a choropleth map",
      "transcribe the speech in an mp4 video and write Spanish subtitles",
      "align protein sequences from a FASTA file and build a phylogenetic tree",
      "clean a messy CSV export and plot monthly totals",
      "deploy a containerized web service to a Kubernetes cluster",
      "write a code review for a pull request that adds a database migration",
      "detect transiting exoplanets in a light curve"]
inproc, rtt = [], []
for i in range(40):
    body = json.dumps({"query": qs[i % len(qs)]}).encode()
    req = urllib.request.Request(base + "/v1/retrieve", body, {"content-type": "application/json"})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=30) as r:
        b = json.load(r)
    rtt.append((time.perf_counter() - t) * 1e3)
    if i >= 8:  # the first round warms caches
        inproc.append(b["timings_ms"]["retrieve"])
print(f"in-process retrieve (server timings, sequential): p50 {statistics.median(inproc):.1f} ms, "
      f"mean {statistics.mean(inproc):.1f} ms; client round trip p50 {statistics.median(rtt[8:]):.1f} ms; "
      f"seed source {b['seed_source']}")
PY

echo "== phase A: 16 connections, ${secs} s"
timeout $((secs + 30)) wrk -t4 -c16 -d"${secs}s" --timeout 30s --latency -s "$root/benches/load-post.lua" "$base" | tee "$scratch/wrk-a.txt"

echo "== phase B: 16 connections while the workspace is rebuilt and swapped twice"
timeout $((swap_secs + 30)) wrk -t4 -c16 -d"${swap_secs}s" --timeout 30s --latency -s "$root/benches/load-post.lua" "$base" > "$scratch/wrk-b.txt" &
wrk_pid=$!
sleep 5
for round in 1 2; do
    t0=$(date +%s.%N)
    timeout 600 "$bin" build "$library" -w "$scratch/ws" --model-dir "$model_dir" --quiet --json > "$scratch/build-$round.json"
    t1=$(date +%s.%N)
    gen=""
    for _ in $(seq 100); do
        gen="$(python3 -c "import json,urllib.request;print(json.load(urllib.request.urlopen('$base/readyz'))['generation'])")"
        [ "$gen" -ge $((round + 1)) ] && break
        sleep 0.1
    done
    echo "rebuild $round: $(python3 -c "print(round($t1 - $t0, 1))") s (vectors reused: $(python3 -c "import json;print(json.load(open('$scratch/build-$round.json'))['embed']['reused'])")), served generation $gen"
done
sleep 5
kill -INT $wrk_pid 2>/dev/null || true
wait $wrk_pid || true
cat "$scratch/wrk-b.txt"
for c in 1 2; do
    echo "== phase C: $c connection(s), 10 s"
    timeout 60 wrk -t1 -c$c -d10s --timeout 30s --latency -s "$root/benches/load-post.lua" "$base" | tee "$scratch/wrk-c$c.txt" | grep -E "Requests/sec|50%|99%|Non-2xx|Socket errors"
done
final="$(python3 -c "import json,urllib.request;print(json.load(urllib.request.urlopen('$base/readyz'))['generation'])")"
echo "final generation: $final (3 = two swaps)"
grep -E "reload" "$log" | tail -4
if grep -qE "Non-2xx|Socket errors" "$scratch"/wrk-*.txt; then
    echo "FAILED REQUESTS (see above)"; exit 1
fi
[ "$final" -ge 3 ] || { echo "the workspace was not swapped twice"; exit 1; }
echo "ok: no failed request; scratch in $scratch"
