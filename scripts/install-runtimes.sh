#!/usr/bin/env bash
# Installs the runtimes the probes measure that a bare machine lacks, from Debian packages:
# Groovy 2.4 (runs on the machine's OpenJDK 17), JRuby 9.3, Ruby 3.1 and PyPy 3.
# CPython 3 and Node.js are on every machine. Idempotent: prints nothing when all are present.
set -euo pipefail

SUDO=()
if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi

missing=()
for pair in groovy:groovy jruby:jruby ruby:ruby pypy3:pypy3; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair##*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-runtimes: installing ${missing[*]} (apt-get)"
"${SUDO[@]}" apt-get update -q >/dev/null
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
