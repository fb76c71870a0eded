#!/usr/bin/env bash
# Replays every shared trace through `simulate` and compares each schedule.csv byte for byte (by
# SHA-256) with the schedule recorded at e872be6, before the engine's cycle was split into a
# resource profile and a queue pass (issue 31). TraceScheduleTests checks the first 3000 jobs of
# each trace on every build; this checks them whole (about 90 s, plus 5 min with FULL=1 for the
# whole SDSC-BLUE trace).
#   ./mvnw -B -ntp -q -DskipFrontend -DskipTests package && scripts/compare-schedules.sh
# Env: JAR (target/gantry.jar), TRACES (../shared/traces), FULL (0), OUT (a temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=${JAR:-target/gantry.jar}
TRACES=${TRACES:-../shared/traces}
OUT=${OUT:-$(mktemp -d)}
FULL=${FULL:-0}
fail=0
check() { # name expected-sha256 simulate-args...
  local name=$1 want=$2
  shift 2
  java -Xmx2g -jar "$JAR" simulate "$@" --out "$OUT/$name.csv" > "$OUT/$name.out" 2>&1
  local got
  got=$(sha256sum "$OUT/$name.csv" | cut -d' ' -f1)
  if [ "$got" = "$want" ]; then
    echo "same      $name"
  else
    echo "CHANGED   $name: $got, recorded $want ($OUT/$name.csv)"
    fail=1
  fi
}
check kth-default b9ca60236ace874fa320e1cfdeecffb5d671a4cc99c283a0eaea59ee0afa840f \
  --trace "$TRACES/KTH-SP2-1996-2.1-cln.swf.gz" --nodes 100 --cpus-per-node 1 --policy default
check kth-easy d733c655613918946de388d101a0b724429d706da39ea0f4dd82d16cce0d5fa2 \
  --trace "$TRACES/KTH-SP2-1996-2.1-cln.swf.gz" --nodes 100 --cpus-per-node 1 --policy easy
check lublin-default 0c2d3321a1dec162e9eada61322b9326e82fcd4cdd7d29202bed867fb4eeaaf5 \
  --trace "$TRACES/lublin_256.swf" --nodes 256 --cpus-per-node 1 --policy default
check lublin-easy fe4814d073a6936871ded9514ba07ee83bfcc1c3e612287bb05771c179efc6be \
  --trace "$TRACES/lublin_256.swf" --nodes 256 --cpus-per-node 1 --policy easy
check lublin2-default 40ee826cda6f81eaf41b08dfbe883362d91215c4cc10f1a35e29efdbf096c5b7 \
  --trace "$TRACES/lublin_256_new2" --nodes 256 --cpus-per-node 1 --policy default
check lublin2-easy 02ba1cdd3c23721cd237c007012acee4ad8ade61722f09017a1b8b5f8667dec3 \
  --trace "$TRACES/lublin_256_new2" --nodes 256 --cpus-per-node 1 --policy easy
check sdsc10k-default 95dacf410af61586a5f392115c15a1e1c5d77e99c6ba2075b94e57126c2035a8 \
  --trace "$TRACES/SDSC-BLUE-2000-4.2-cln.swf.gz" --nodes 1152 --cpus-per-node 1 --max-jobs 10000 --policy default
check sdsc10k-easy 47c5356582f9fce6f3c7c8fef82dba67fa74b5ce37139c955710bcd3b2fbb3ea \
  --trace "$TRACES/SDSC-BLUE-2000-4.2-cln.swf.gz" --nodes 1152 --cpus-per-node 1 --max-jobs 10000 --policy easy
if [ "$FULL" = 1 ]; then
  check sdsc-full-default e14db895196c44a2f572b4955edc26297cd127def5423b0188db2d6cb867e95b \
    --trace "$TRACES/SDSC-BLUE-2000-4.2-cln.swf.gz" --nodes 1152 --cpus-per-node 1 --policy default
fi
exit $fail
