#!/usr/bin/env bash
# Load test of `gos serve` on loopback (docs/performance.md, "Serving under load").
#
#   benches/load-test.sh                                   # defaults below
#   GOS_LOAD_WORKSPACES="lex=/tmp/ws-lex vec=/tmp/ws-vec" benches/load-test.sh
#
# For each workspace of GOS_LOAD_WORKSPACES (LABEL=PATH, space-separated; a workspace with
# vectors is served with GOS_MODEL_DIR's encoder, a lexical one without):
# 1. copies it to a scratch folder (the original is never touched) and starts the release
#    `gos serve` on 127.0.0.1 (a free port);
# 2. warms the server (2 clients, 5 s, not reported);
# 3. steady state: for each N of GOS_LOAD_CLIENTS (default "8 64"), N closed-loop clients POST
#    /v1/retrieve with the DEV task texts for GOS_LOAD_SECS (20) seconds;
# 4. across rebuilds: for each N of GOS_SWAP_CLIENTS (default "64"), the same load while the
#    copy is rebuilt twice with `gos build` (the server's reloader swaps each build in); the
#    load stops 3 s after the second swap. Each run must see generations g, g+1, g+2 in
#    /readyz and count no failed request.
# Every run prints one JSON line (benches/src/bin/serve-load.rs): requests/s, p50/p90/p99/max
# in ms, errors by kind, generations seen, the load average at start and end; a summary table
# follows. The load client is built with `cargo build --workspace` (target/debug/serve-load).
# Bounded: each client run has a time limit, each build a timeout; loopback only.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${GOS_BIN:-$root/target/release/gos}"
client="${GOS_LOAD_CLIENT:-$root/target/debug/serve-load}"
workspaces="${GOS_LOAD_WORKSPACES:-lex=/tmp/gos-ws-lex vec=/tmp/gos-ws-vec}"
library="${GOS_LOAD_LIBRARY:-/work/shared/data/library}"
queries="${GOS_LOAD_QUERIES:-/work/shared/data/skillsbench/dev/tasks.jsonl}"
model_dir="${GOS_MODEL_DIR:-$root/models/all-MiniLM-L6-v2}"
secs="${GOS_LOAD_SECS:-20}"
clients="${GOS_LOAD_CLIENTS-8 64}"
swap_clients="${GOS_SWAP_CLIENTS-64}"
build_timeout="${GOS_BUILD_TIMEOUT:-900}"
scratch="$(mktemp -d /tmp/gos-load.XXXXXX)"
results="$scratch/results.jsonl"
[ -x "$bin" ] || { echo "no gos binary at $bin (cargo build --release -p gos-cli, or set GOS_BIN)" >&2; exit 2; }
[ -x "$client" ] || { echo "no load client at $client (cargo build --workspace, or set GOS_LOAD_CLIENT)" >&2; exit 2; }
[ -f "$queries" ] || { echo "SKIP: no task file at $queries" >&2; exit 0; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; gos $("$bin" --version)"

server=""
load=""
stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=""
    fi
}
cleanup() {
    if [ -n "$load" ]; then kill "$load" 2>/dev/null || true; fi
    stop_server
}
trap cleanup EXIT

generation() {
    python3 -c "import json,sys,urllib.request;print(json.load(urllib.request.urlopen(sys.argv[1]+'/readyz',timeout=10))['generation'])" "$1"
}

# run LABEL CLIENTS ARGS...: one client run, its JSON line appended to the results.
run() {
    local label="$1" n="$2"
    shift 2
    local out
    out="$("$client" --url "$base" --queries "$queries" --clients "$n" --label "$label" "$@")" || {
        echo "$out"
        echo "FAILED: $label with $n clients" >&2
        return 1
    }
    echo "$out" | tee -a "$results"
}

for entry in $workspaces; do
    name="${entry%%=*}"
    src="${entry#*=}"
    [ -f "$src/workspace.json" ] || { echo "SKIP $name: no workspace at $src" >&2; continue; }
    ws="$scratch/ws-$name"
    cp -a "$src" "$ws"
    if compgen -G "$ws/vectors*" >/dev/null; then
        serve_model=(--model-dir "$model_dir")
        build_model=(--model-dir "$model_dir")
    else
        serve_model=(--lexical)
        build_model=(--no-embed)
    fi
    log="$scratch/serve-$name.log"
    "$bin" serve -w "$ws" "${serve_model[@]}" --addr 127.0.0.1:0 2>"$log" &
    server=$!
    base=""
    for _ in $(seq 600); do
        base="$(grep -o 'http://[0-9.:]*' "$log" | head -1 || true)"
        [ -n "$base" ] && break
        sleep 0.1
    done
    [ -n "$base" ] || { cat "$log" >&2; exit 1; }
    echo "== $name: $base (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    "$client" --url "$base" --queries "$queries" --clients 2 --secs 5 --label warm >/dev/null

    for n in $clients; do
        run "$name steady" "$n" --secs "$secs"
    done

    for n in $swap_clients; do
        stop="$scratch/stop-$name-$n"
        run "$name 2 rebuilds" "$n" --until "$stop" --secs $((2 * build_timeout + 60)) &
        load=$!
        sleep 3
        for round in 1 2; do
            before="$(generation "$base")"
            t0=$(date +%s.%N)
            timeout "$build_timeout" "$bin" build "$library" -w "$ws" "${build_model[@]}" --quiet --json \
                >"$scratch/build-$name-$n-$round.json"
            t1=$(date +%s.%N)
            gen="$before"
            for _ in $(seq 300); do
                gen="$(generation "$base")"
                [ "$gen" -gt "$before" ] && break
                sleep 0.1
            done
            echo "rebuild $round of $name under $n clients: $(python3 -c "import sys;print(round(float(sys.argv[2])-float(sys.argv[1]),1))" "$t0" "$t1") s, served generation $before -> $gen"
            [ "$gen" -gt "$before" ] || { echo "the server did not swap in rebuild $round" >&2; touch "$stop"; wait "$load" || true; exit 1; }
        done
        sleep 3
        touch "$stop"
        wait "$load"
        load=""
    done
    grep -E "reload" "$log" | tail -2 || true
    stop_server
done

python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("\n| run | clients | requests | errors | req/s | p50 ms | p99 ms | generations | load avg (1 min) start/end |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
for r in rows:
    gens = ",".join(map(str, r["generations_seen"]))
    print(f"| {r['label']} | {r['clients']} | {r['requests']} | {r['errors']} | {r['requests_per_s']:.1f} | "
          f"{r['p50_ms']:.0f} | {r['p99_ms']:.0f} | {gens} | {r['loadavg_start'][0]:.1f} / {r['loadavg_end'][0]:.1f} |")
bad = [r for r in rows if r["errors"]]
swaps = [r for r in rows if "rebuilds" in r["label"] and len(r["generations_seen"]) < 3]
if bad or swaps:
    sys.exit("FAILED: runs with errors or fewer than two swaps: "
             + ", ".join(f"{r['label']} x{r['clients']}" for r in bad + swaps))
print("ok: no failed request; every rebuild run saw two swaps")
PY
echo "scratch: $scratch"
