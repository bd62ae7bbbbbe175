#!/usr/bin/env bash
# The hostile inputs of docs/HOSTILE.md, written again and given to the release `blast`: one
# line each with the exit code, the first line of stderr (cut at 150 characters), the wall and
# CPU time and the peak memory (`/usr/bin/time`). Times depend on the machine and its load;
# exit codes, messages and memory do not. Usage: `bash scripts/hostile.sh [DIR]` (DIR keeps the
# inputs, ~700 MB; a temporary directory by default).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --offline -q -p blast-cli --manifest-path "$root/Cargo.toml" || exit 1
blast="$root/target/release/blast"
dir=${1:-$(mktemp -d)}
mkdir -p "$dir" && cd "$dir" || exit 1

# Each input is written once by a Python one-liner; `py FILE CODE` runs CODE with `w` = write.
py() { [ -s "$1" ] || python3 -c "import sys; w = sys.stdout.write; $2" > "$1"; }
py nest20k.blast "w('op { ' + 'repeat 1 { ' * 20000)"
py nest12k.blast "w('class A { m }\nsite s = A.m\nop { ' + 'repeat 1 { ' * 12000 + 'call s ' + '} ' * 12000 + '}\n')"
py classes3m.blast "w(''.join('class K%d { m }\n' % i for i in range(3_100_000)))"
py sites3m.blast "w('class A { m }\n' + ''.join('site s%d=A.m\n' % i for i in range(3_600_000)))"
py receivers.blast "w(''.join('class K%d { m }\n' % i for i in range(64)) + ''.join('site s%d = ' % i + ', '.join('K%d.m' % k for k in range(64)) + '\n' for i in range(92_752)))"
py sites1m1.blast "w('class A { m }\n' + ''.join('site s%d = A.m\n' % i for i in range(1_000_001)) + 'op { loop 1 { call s0 } }\n')"
py methods7m.blast "w('class A { ' + ' '.join('m%d' % i for i in range(7_200_000)) + ' }\n')"
py admission.blast "w(''.join('class K%d { m }\n' % i for i in range(100_000)) + ''.join('site s%d = K%d.m\n' % (i, i % 100_000) for i in range(1_000_000)) + 'op { loop 100000 { every 1000 { write K0.m } call s0 call s1 } }\n')"
py exact10k.blast "w(''.join('class K%d { m }\n' % i for i in range(100_000)) + ''.join('site s%d = K%d.m\n' % (i, i % 100_000) for i in range(1_000_000)) + 'op { loop 10000 { write K0.m call s0 call s1 } }\n')"
py setup20k.blast "w('class A { m }\nsite s = A.m\nsetup { ' + 'write A.m ' * 20000 + '}\nop { loop 1 { call s } }\n')"
py sites.json "w('{\"classes\": [{\"name\": \"A\", \"methods\": [\"m\"]}], \"sites\": [\n' + ',\n'.join('{\"name\": \"s%d\", \"class\": \"A\", \"method\": \"m\"}' % i for i in range(1_260_000)) + ']}\n')"
py typo.json "w('{\"classes\": [{\"name\": \"A\", \"methods\": [\"m\"]}, {\"name\": \"B\", \"parnet\": \"A\", \"methods\": [\"m\"]}], \"op\": []}')"
py dup.blast "w('class A { m m }\nsite s = A.m\nop { loop 1 { call s } }\n')"
py undeclared.blast "w('class A { m }\nsite s = A.zz\nop { loop 1 { call s } }\n')"
py undeclared1m.blast "w('class A { m }\n' + ''.join('site s%d = A.m\n' % i for i in range(999_999)) + 'site last = A.zz\nop { loop 1 { call s0 } }\n')"
py cycle.blast "w(''.join('class K%d extends K%d { m }\n' % (i, (i + 1) % 99_999) for i in range(99_999)) + 'op { write K0.m }\n')"
py clash.blast "w('class A { m }\nsite s = A.m\nsetup { load class A extends A { m } }\nop { loop 1 { call s } }\n')"
py lonecr.blast "w('class A { m }\rsite s = A.zz\rop { loop 1 { call s } }\r')"
py bom.blast "w('\ufeffclass A { m }\nsite s = A.m\nop { loop 1 { call s } }\n')"
py nul.blast "w('class A { m }\n\0site s = A.m\n')"
printf 'class A { m }\nsite s = A.\xff\n' > utf8.blast

# One run: NAME, then the command (run by bash, in DIR).
run() {
  local name=$1; shift
  local out
  out=$( { timeout 120 /usr/bin/time -f '%x|%e|%U|%S|%M' bash -c "$*" 2>&1 >/dev/null; } 2>&1 )
  local stats=${out##*$'\n'} msg
  msg=$(printf '%s\n' "$out" | grep -v '^Command exited' | head -n -1 | head -1 | cut -c1-150)
  IFS='|' read -r code wall user sys peak <<< "$stats"
  printf '%-34s exit %-3s %6ss wall %5.2fs cpu %7.1f MB  %s\n' "$name" "$code" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$peak / 1000" | bc -l)" "$msg"
}
run "nesting 20,000 deep" "$blast run nest20k.blast"
run "nesting 12,000 deep" "$blast run nest12k.blast"
run "presets > /dev/full" "$blast presets > /dev/full"
run "run all --format json | head -c 10" "$blast run all --format json | head -c 10"
run "run /nonexistent 2>/dev/full" "$blast run /nonexistent 2>/dev/full; echo exit \$? >&2"
run "3.1 M classes (64 MB)" "$blast run classes3m.blast"
run "the same through a pipe" "cat classes3m.blast | $blast run /dev/stdin"
run "3.6 M sites" "$blast run sites3m.blast"
run "92,752 sites x 64 receivers" "$blast run receivers.blast"
run "1,000,001 sites" "$blast run sites1m1.blast"
run "/dev/zero" "$blast run /dev/zero"
run "one class, 7.2 M methods" "$blast run methods7m.blast"
run "1.26 M sites as JSON" "$blast run sites.json"
run "admission: 10^6 sites, 101 writes" "$blast run admission.blast --policy exact"
run "10^6 sites, 10^4 exact writes" "$blast run exact10k.blast --policy exact"
run "20,000 writes in setup" "$blast run setup20k.blast --policy exact"
run "JSON typo parnet" "$blast run typo.json"
run "class A { m m }" "$blast run dup.blast"
run "site s = A.zz" "$blast run undeclared.blast"
run "10^6 sites, the last A.zz" "$blast run undeclared1m.blast"
run "99,999-class cycle" "$blast run cycle.blast"
run "load class A extends A" "$blast run clash.blast"
run "lone CR line breaks" "$blast run lonecr.blast"
run "a UTF-8 BOM" "$blast run bom.blast"
run "a NUL byte" "$blast run nul.blast"
run "invalid UTF-8" "$blast run utf8.blast"
