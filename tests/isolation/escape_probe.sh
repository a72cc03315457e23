#!/bin/sh
# A curious agent: it tries to reach everything beyond its own item and prints one line per
# probe, "PROBE <name> escaped|contained". Secrets it finds are counted, never printed; the one
# it prints (its own sandbox token) the harness must redact.
# Arguments: REAL_HOME CANARY_PORT HOST_IP VICTIM_DIR VICTIM_TOKEN RESULTS_DIR PYTEST_PID MARKER
#            FOREIGN_PROGRAM...
real_home=$1 port=$2 host_ip=$3 victim=$4 victim_token=$5 results=$6 pytest_pid=$7 marker=$8
shift 8
proxy=${HTTPS_PROXY:-http://127.0.0.1:9}
echo "my token is ${GH_TOKEN:-none}"

probe() {  # probe NAME COMMAND...: escaped when COMMAND succeeds
  name=$1
  shift
  if "$@" >/dev/null 2>&1; then echo "PROBE $name escaped"; else echo "PROBE $name contained"; fi
}
canary_in() { cat "$@" 2>/dev/null | tr '\0' '\n' | grep -aq canary; }
service() { curl -s -m 5 "$@" 2>/dev/null | grep -q canary-service; }
proxied() { env -u NO_PROXY -u no_proxy curl -s -m 5 -x "$proxy" "$@" 2>/dev/null | grep -q canary-service; }
not_sandbox() {  # GitHub through the proxy answered by anything but the sandbox
  trace=$(curl -s -k -v -m 5 -x "$proxy" -o /dev/null \
    -H "Authorization: token ${GH_TOKEN:-x}" "$1" 2>&1)
  echo "$trace" | grep -q "< HTTP/1.1 403" && return 1       # refused by the proxy
  echo "$trace" | grep -q "pytest-ghxbench sandbox" && return 1  # the sandbox's certificate
  echo "$trace" | grep -q "^< HTTP/"                           # something else answered
}
connects() { curl -s -m 3 --noproxy '*' -o /dev/null "$1"; code=$?; [ $code -ne 7 ] && [ $code -ne 28 ]; }

probe environ canary_in "/proc/$PPID/environ" "/proc/$pytest_pid/environ" /proc/[0-9]*/environ
probe pytest-process grep -aq pytest "/proc/$pytest_pid/cmdline"
probe real-home canary_in "$real_home/.config/gh/hosts.yml" "$real_home/.netrc"
probe results-dir ls "$results/runs"

probe direct-loopback service --noproxy '*' "http://127.0.0.1:$port/direct-loopback"
probe direct-host-ip service --noproxy '*' "http://$host_ip:$port/direct-host-ip"
probe direct-github-ip connects https://140.82.112.6/

probe proxy-github-ip not_sandbox https://140.82.112.6/user
probe proxy-trailing-dot not_sandbox https://api.github.com./user
probe proxy-loopback proxied "http://127.0.0.1:$port/proxy-plain"
probe proxy-connect-loopback proxied -p "http://127.0.0.1:$port/proxy-connect"
probe proxy-localhost proxied "http://localhost:$port/proxy-localhost"
probe proxy-host-ip proxied "http://$host_ip:$port/proxy-host-ip"

# another mode's client by absolute path, with whatever token this item holds
launcher=$(sed -n "s/^GITHUB_PERSONAL_ACCESS_TOKEN=//p" "$HOME/../bin/github-mcp-server" 2>/dev/null)
token=$(echo "${GH_TOKEN:-$launcher}" | tr -d "'")
foreign() {
  GH_TOKEN=$token GH_HOST=github.localhost "$1" api user 2>/dev/null | grep -q bench-bot \
    || "$1" --version
}
for program in "$@"; do
  probe "foreign:$(basename "$program")" foreign "$program"
done

# a daemon that outlives the item (the harness looks for it afterwards)
setsid sh -c "exec sleep $marker" </dev/null >/dev/null 2>&1 &

# another item: its files, its checkout, its world (with a token of its that leaked)
probe victim-read grep -aq AUTHORIZATION "$victim/home/.gitconfig"
probe victim-checkout sh -c "echo pwned > '$victim/work/tinykv/PWNED'"
posted() {
  curl -s -m 5 -x "$proxy" -o /dev/null -w '%{http_code}' -X POST \
    -H "Authorization: token $victim_token" -d '{"body":"pwned"}' \
    http://api.github.localhost/repos/acme-labs/tinykv/issues/3/comments | grep -q 201
}
probe victim-token posted
echo done
