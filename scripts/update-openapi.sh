#!/usr/bin/env bash
# Regenerates src/main/openapi/gantry.json, the OpenAPI document the Java SDK is generated from,
# from what a freshly built controller serves at /v3/api-docs. Run it after changing a controller
# or its OpenAPI annotations (SdkIntegrationTests fails when the committed file has drifted).
#
#   scripts/update-openapi.sh            # build the jar (tests skipped), start it, fetch, stop
#   SKIP_BUILD=1 scripts/update-openapi.sh   # reuse target/gantry.jar as it is
#
# The controller runs on a free port with a throw-away data dir (embedded H2, demo cluster).
# The document is written pretty-printed with the key order as served, minus `servers` (it
# names the port this script happened to use), so the file only changes when the API does.
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=src/main/openapi/gantry.json
JAR=target/gantry.jar
TIMEOUT=${TIMEOUT:-300}

if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  echo "building $JAR ..." >&2
  # maven.test.skip: no test compilation, so a stale SDK (generated from the old document)
  # cannot stop the build that is meant to refresh it.
  ./mvnw -B -ntp -q -Dmaven.test.skip=true package
fi
[[ -f $JAR ]] || { echo "$JAR is missing: run without SKIP_BUILD" >&2; exit 1; }

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DATA=$(mktemp -d)
LOG="$DATA/gantry.log"
PID=
cleanup() {
  if [[ -n $PID ]] && kill -0 "$PID" 2>/dev/null; then
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
  fi
  rm -rf "$DATA"
}
trap cleanup EXIT

echo "starting $JAR on port $PORT ..." >&2
java -jar "$JAR" --server.port="$PORT" --gantry.data-dir="$DATA" \
  --gantry.security.bootstrap-admin-password=update-openapi-x12345678 >"$LOG" 2>&1 &
PID=$!

deadline=$((SECONDS + TIMEOUT))
until curl -fsS "http://127.0.0.1:$PORT/actuator/health" 2>/dev/null | grep -q '"UP"'; do
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "the controller exited during start-up; its log:" >&2; tail -50 "$LOG" >&2; exit 1
  fi
  if (( SECONDS > deadline )); then
    echo "the controller was not healthy after ${TIMEOUT}s; its log:" >&2; tail -50 "$LOG" >&2; exit 1
  fi
  sleep 1
done

curl -fsS "http://127.0.0.1:$PORT/v3/api-docs" -o "$DATA/api-docs.json"
python3 - "$DATA/api-docs.json" "$OUT" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f)          # dicts keep the order as served
doc.pop("servers", None)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")
PY
echo "wrote $OUT ($(git diff --stat -- "$OUT" | tail -1 || true))" >&2
