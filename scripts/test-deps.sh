#!/usr/bin/env bash
# Debian packages the test suite needs, installed only when missing (CI runs as root; `npm test` calls this first).
#   chromium                         the study dashboard's browser test (driven by playwright-core, which downloads nothing)
#   python3-grpcio python3-protobuf  the Python client's tests (Debian's /usr/bin/python3, not a pyenv one)
#   protobuf-compiler protobuf-compiler-grpc  protoc and grpc_python_plugin: clients/python/gen.sh generates the
#                                    Python stubs from proto/ (3.21 / 1.51, matching python3-protobuf / python3-grpcio)
#   openssl                          test certificates
#   iproute2                         the network-namespace test (ip, tc)
set -euo pipefail
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for pkg in chromium python3-grpcio python3-protobuf protobuf-compiler protobuf-compiler-grpc openssl iproute2; do
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
