"""The generated lockd.v1 stubs (clients/python/gen.sh writes them to lockd/_gen/ from proto/)."""

try:
    from ._gen import lockd_pb2 as pb
    from ._gen import lockd_pb2_grpc as pb_grpc
except ImportError as e:  # pragma: no cover - a clear message for a checkout that was never built
    raise ImportError(f"lockd's generated stubs are missing ({e}): run clients/python/gen.sh first") from e

__all__ = ["pb", "pb_grpc"]
