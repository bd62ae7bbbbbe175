#!/usr/bin/env bash
# Captures real runtime logs from the small programs in probes/traces/ (see its README.md):
# V8 (Node.js) deopt/IC/map/code logs, HotSpot LogCompilation logs and Groovy 2.4 indy
# selection logs, each with a NAME.meta file recording how and where it was captured.
#
#   bash scripts/capture-traces.sh [--big] [--out DIR] [NAME..]
#
# Default: the small logs (< 1 MB each, see probes/traces/README.md) into
# probes/traces/logs/, committed as test data. --big: the big logs for benchmarks (a 75 MB V8
# log of 1,020 prototype writes, the 73 MB Groovy log of a 30,000-iteration loop over a
# three-receiver site) into probes/traces/logs-big/, which git ignores. NAME.. limits the run to
# those captures.
#
# For each capture NAME the output directory gets:
#   NAME.log     the log exactly as the runtime wrote it (nothing prepended or appended);
#   NAME.meta    `key: value` lines: runtime, version, command, machine, date, sizes;
#   NAME.stdout  what the program printed on stdout (its result line; node also prints its
#                "[bailout ...]" deopt traces there);
#   NAME.classes the program's class tree (V8 and HotSpot samples), which the logs do not say:
#                written right after the run by a separate process over the same program
#                (probes/traces/java/tree/ClassTree.java, probes/traces/node/class-tree.js), the
#                format in crates/engine/src/trace/classes.rs; `blast trace` reads it beside the log.
# Installs what is missing: Groovy from apt (Debian's groovy 2.4 package). Node and a JDK
# (java, javac) must be on the machine already, as they are for scripts/probe.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

big=0 out=""
only=()
while [ $# -gt 0 ]; do
  case $1 in
    --big) big=1 ;;
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "usage: bash scripts/capture-traces.sh [--big] [--out DIR] [NAME..]" >&2; exit 2 ;;
    *) only+=("$1") ;;
  esac
  shift
done
if [ -z "$out" ]; then
  if [ "$big" = 1 ]; then out=probes/traces/logs-big; else out=probes/traces/logs; fi
fi
mkdir -p "$out"

# --- runtimes -------------------------------------------------------------------------------
for tool in node java javac; do
  command -v "$tool" >/dev/null || { echo "capture-traces: $tool is not installed" >&2; exit 1; }
done
if [ -z "${JAVA_HOME:-}" ]; then
  # Debian's groovy launcher needs JAVA_HOME; take the JDK that `javac` belongs to.
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
  export JAVA_HOME
fi
if ! command -v groovy >/dev/null; then
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
  echo "capture-traces: installing groovy (apt-get)" >&2
  "${SUDO[@]}" apt-get update -q >/dev/null
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q groovy >/dev/null
fi

# --- build the Java programs and the Groovy metaclass listener ------------------------------
BUILD=target/trace-capture
GROOVY_JAR="$(ls /usr/share/groovy/lib/groovy-2.*.jar 2>/dev/null | head -1 || true)"
if [ -z "$GROOVY_JAR" ]; then
  GROOVY_JAR="$(dirname "$(readlink -f "$(command -v groovy)")")/../lib/groovy-2.4.21.jar"
fi
mkdir -p "$BUILD/java" "$BUILD/tree" "$BUILD/groovy"
javac -d "$BUILD/java" probes/traces/java/*.java
javac -d "$BUILD/tree" probes/traces/java/tree/ClassTree.java
javac -nowarn --release 8 -cp "$GROOVY_JAR" -d "$BUILD/groovy" probes/traces/groovy/MetaClassChangeLog.java 2>/dev/null

# --- one capture ----------------------------------------------------------------------------
wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local n
  for n in "${only[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

# capture NAME RUNTIME PROGRAM LOG_TO(file|stderr) COMMAND...
# The command may contain the word @LOG@, replaced by the log's path.
captured=0
capture() {
  local name=$1 runtime=$2 program=$3 sink=$4
  shift 4
  wanted "$name" || return 0
  captured=$((captured + 1))
  local log="$out/$name.log" meta="$out/$name.meta" stdout="$out/$name.stdout"
  local cmd=() arg
  for arg in "$@"; do cmd+=("${arg//@LOG@/$log}"); done
  rm -f "$log"
  local started rc=0
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  if [ "$sink" = stderr ]; then
    "${cmd[@]}" >"$stdout" 2>"$log" || rc=$?
  else
    "${cmd[@]}" >"$stdout" || rc=$?
  fi
  if [ "$rc" -ne 0 ] || [ ! -s "$log" ]; then
    echo "capture-traces: $name failed (exit $rc, log $log)" >&2
    exit 1
  fi
  {
    echo "name: $name"
    echo "runtime: $runtime"
    case $runtime in
      node) echo "version: node $(node --version), V8 $(node -p process.versions.v8)" ;;
      hotspot) java -version 2>&1 | sed 's/^/version: /' ;;
      groovy) groovy --version 2>&1 | sed 's/^/version: /' ;;
    esac
    echo "program: $program"
    echo "command: ${cmd[*]}$([ "$sink" = stderr ] && echo " 2> $log")"
    echo "cwd: $ROOT"
    [ "$runtime" = groovy ] && echo "java-home: $JAVA_HOME"
    echo "machine: $(uname -a)"
    echo "nproc: $(nproc)"
    echo "date: $started"
    echo "exit: $rc"
    echo "log: $log"
    echo "log-bytes: $(wc -c <"$log")"
    echo "log-lines: $(wc -l <"$log")"
    echo "stdout-last: $(tail -n 1 "$stdout")"
  } >"$meta"
  printf 'capture-traces: %-22s %10s bytes %8s lines\n' "$name" "$(wc -c <"$log")" "$(wc -l <"$log")" >&2
}

# tree NAME COMMAND...: the class tree of capture NAME's program into NAME.classes, by COMMAND
# (which may contain @OUT@), and its path into NAME.meta.
tree() {
  local name=$1
  shift
  wanted "$name" || return 0
  local classes="$out/$name.classes" cmd=() arg
  for arg in "$@"; do cmd+=("${arg//@OUT@/$classes}"); done
  "${cmd[@]}"
  echo "classes: $classes ($(grep -c '^class ' "$classes") classes, by: ${cmd[*]})" >>"$out/$name.meta"
}

# V8: --no-log-maps-details keeps each `map-details` line to its address (the full descriptor
# dump is ~12 MB even for a 60-line program); --no-concurrent-recompilation makes optimization
# happen on the main thread, so the deopt counts are the same run to run.
# --no-log-source-code: no `script-source` lines (the whole text of every script, Node's 30
# bootstrap modules being 660 KB of an empty script's 869 KB log under --log-code); the
# readers use none of it, and without it the samples are under 1 MB.
NODE_FLAGS=(--log-deopt --log-ic --log-maps --no-log-maps-details --log-code --no-log-source-code
  --logfile=@LOG@ --no-logfile-per-isolate --no-concurrent-recompilation)
# HotSpot: -XX:-BackgroundCompilation compiles in the foreground, so the order of compiles,
# dependency failures and make_not_entrant lines is the same run to run.
JAVA_FLAGS=(-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=@LOG@
  -XX:-BackgroundCompilation -cp "$BUILD/java")
# Groovy: -cp must come first (startGroovy reads it only there); the indy log goes to stderr.
GROOVY_FLAGS=(-cp "$BUILD/groovy" --indy -Dgroovy.indy.logging=true)

if [ "$big" = 0 ]; then
  for prog in proto-write proto-chain shapes-plugins; do
    capture "v8-$prog" node "probes/traces/node/$prog.js" file \
      node "${NODE_FLAGS[@]}" "probes/traces/node/$prog.js"
    tree "v8-$prog" node probes/traces/node/class-tree.js @OUT@ "probes/traces/node/$prog.js"
  done
  for prog in ChaBreak:cha-break PluginRegistry:plugin-registry; do
    capture "hotspot-${prog#*:}" hotspot "probes/traces/java/${prog%%:*}.java" file \
      java "${JAVA_FLAGS[@]}" "${prog%%:*}"
    tree "hotspot-${prog#*:}" java -cp "$BUILD/java:$BUILD/tree" ClassTree @OUT@ "$BUILD/java" "${prog%%:*}"
  done
  capture groovy-unrelated-churn groovy "probes/traces/groovy/churn.groovy Unrelated" stderr \
    groovy "${GROOVY_FLAGS[@]}" probes/traces/groovy/churn.groovy Unrelated
  capture groovy-same-class-churn groovy "probes/traces/groovy/churn.groovy Hot" stderr \
    groovy "${GROOVY_FLAGS[@]}" probes/traces/groovy/churn.groovy Hot
  capture groovy-plugin-registry groovy probes/traces/groovy/plugin-registry.groovy stderr \
    groovy "${GROOVY_FLAGS[@]}" probes/traces/groovy/plugin-registry.groovy
else
  # 1,020 prototype writes with full map details: about 75 MB. More writes do not grow the log:
  # after the ~1,016th added property the prototype takes no more map transitions (no more
  # `map,ReplaceDescriptors` lines, observed), so the writes stop showing up.
  capture v8-proto-write-big node "probes/traces/node/proto-write.js 1120000 1000" file \
    node --log-deopt --log-ic --log-maps --log-code --logfile=@LOG@ --no-logfile-per-isolate \
    probes/traces/node/proto-write.js 1120000 1000
  # About 100 MB: Counter's prototype written 660 times besides Point's 1,020 (a second
  # prototype growing; the e2e's big-log check captures the same run, tests/e2e/checks/trace-lab.mjs).
  capture v8-proto-write-huge node "probes/traces/node/proto-write.js 1120000 1000 660" file \
    node --log-deopt --log-ic --log-maps --log-code --logfile=@LOG@ --no-logfile-per-isolate \
    probes/traces/node/proto-write.js 1120000 1000 660
  capture groovy-three-receivers-big groovy "probes/traces/groovy/three-receivers.groovy 30000" stderr \
    groovy "${GROOVY_FLAGS[@]}" probes/traces/groovy/three-receivers.groovy 30000
fi
if [ "$captured" -ne "${#only[@]}" ] && [ ${#only[@]} -gt 0 ]; then
  echo "capture-traces: captured $captured of ${#only[@]} names asked for; unknown names in: ${only[*]}" >&2
  exit 2
fi
