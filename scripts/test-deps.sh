#!/usr/bin/env bash
# What the test suite needs, installed only when missing: the Node packages (npm ci) and Debian packages
# (apt-get; CI runs as root). `npm test` calls this first.
#   chromium                         the study dashboard's browser test (driven by playwright-core, which downloads nothing)
#   python3-grpcio python3-protobuf  the Python client's tests (Debian's /usr/bin/python3, not a pyenv one)
#   protobuf-compiler protobuf-compiler-grpc  protoc and grpc_python_plugin: clients/python/gen.sh generates the
#                                    Python stubs from proto/ (3.21 / 1.51, matching python3-protobuf / python3-grpcio)
#   python3-venv python3-setuptools python3-wheel  the Python package's install test: a venv, and pip building
#                                    clients/python offline (--no-build-isolation: setuptools and wheel from Debian)
#   python3-mypy                     that mypy reads the installed Python package's types (py.typed)
#   openssl                          test certificates
#   iproute2                         the network-namespace test (ip, tc)
#   fuse3 python3-pyfuse3            lazyfs (test/faults/lazyfs): the FUSE file system the power-cut tests run nodes on
set -euo pipefail
cd "$(dirname "$0")/.."
# Node packages first (a fresh clone that never ran ./cluster.sh start).
if [[ ! -d node_modules ]]; then
  echo "test-deps: installing Node packages (npm ci)" >&2
  npm ci --no-audit --no-fund >/dev/null 2>&1 || npm install --no-audit --no-fund
fi
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for pkg in chromium python3-grpcio python3-protobuf protobuf-compiler protobuf-compiler-grpc python3-venv python3-setuptools python3-wheel python3-mypy openssl iproute2 fuse3 python3-pyfuse3; do
  have "$pkg" || need+=("$pkg")
done
[[ ${#need[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -ne 0 ]]; then
  echo "test-deps: missing Debian packages: ${need[*]} (run as root, or: sudo apt-get install ${need[*]})" >&2
  exit 1
fi
echo "test-deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "${need[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "${need[@]}" >/dev/null; }
