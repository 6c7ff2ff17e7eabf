"""A stand-in node for tests: it forwards Lease.Grant and Lock.Acquire to the real leader — so the
call IS applied — then loses the answer on the way back, failing UNAVAILABLE with the leader named
in the ``lockd-leader`` trailer, as a follower that lost its connection to the leader might. Every
other call fails the same way without being forwarded. A client pointed here must follow the hint
and retry with the same request id, and the cluster must answer the retry from the first attempt.
"""

from __future__ import annotations

import threading
from concurrent import futures

import grpc

from lockd._proto import pb

FORWARDED = {
    "/lockd.v1.Lease/Grant": (pb.LeaseGrantRequest, pb.LeaseGrantResponse),
    "/lockd.v1.Lock/Acquire": (pb.AcquireRequest, pb.AcquireResponse),
}


class LostAnswerNode(grpc.GenericRpcHandler):
    def __init__(self, leader: str):
        self.leader = leader
        #: (method, request, the leader's response) of every forwarded call, in order.
        self.forwarded: list = []
        #: Every method called here.
        self.calls: list = []
        self._mu = threading.Lock()
        self._upstream = grpc.insecure_channel(leader)
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self._server.add_generic_rpc_handlers((self,))
        self.address = f"127.0.0.1:{self._server.add_insecure_port('127.0.0.1:0')}"
        self._server.start()

    def service(self, details):
        method = details.method

        def handle(request: bytes, context: grpc.ServicerContext):
            with self._mu:
                self.calls.append(method)
            types = FORWARDED.get(method)
            if types is not None:
                answer = self._upstream.unary_unary(method)(request, timeout=10)
                with self._mu:
                    self.forwarded.append((method, types[0].FromString(request), types[1].FromString(answer)))
            context.set_trailing_metadata((("lockd-leader", self.leader),))
            context.abort(grpc.StatusCode.UNAVAILABLE, "the leader's answer was lost on the way back")

        return grpc.unary_unary_rpc_method_handler(handle)  # raw bytes in and out

    def close(self) -> None:
        self._server.stop(None)
        self._upstream.close()
