"""The rendezvous store of an elastic PyTorchJob, in a pod of its own, off spot nodes.

torchrun's c10d rendezvous keeps its state in a TCPStore at the endpoint the Training Operator
names (PET_RDZV_ENDPOINT, `elasticPolicy.rdzvHost:rdzvPort`); with no rdzvHost that is worker-0,
whose agent hosts the store, so losing worker-0 to a spot reclaim stops every worker. Here the
job's Master replica runs this program instead of training (components/spot-elastic): the workers'
agents are the store's clients (rdzvConf is_host=false), and a spot reclaim of any worker leaves
the store, and the others' rendezvous, standing.

With a Master replica the Training Operator calls the job succeeded when the Master succeeds
(v1.8.1 pkg/controller.v1/pytorch/pytorchjob_controller.go, UpdateJobStatus), so the store serves
until rank 0 has written the model and set MODEL_WRITTEN_KEY (train.py --rendezvous-store), waits
--linger seconds for the agents to close the rendezvous, and exits 0. SIGTERM (the job deleted or
preempted) ends it at once, as any signal ends a Python program that does not handle it.

An agent that ends for another reason than a signal (its --max-restarts spent, a rendezvous
timeout) closes the run in the store (torch 2.13 launcher/api.py, launch_agent, then
DynamicRendezvousHandler.shutdown), and every agent that joins after is refused for as long as the
store lives. So a run closed before the model is written ends the store with exit 1: the Master
restarts (restartPolicy OnFailure) with an empty store, which the restarted workers join afresh.

    python rendezvous_store.py --port 23456
"""

from __future__ import annotations

import argparse
import base64
import os
import pickletools
import sys
import time
from datetime import timedelta

MODEL_WRITTEN_KEY = "trainops/model-written"
# Where torch's c10d backend keeps a run's state (c10d_rendezvous_backend.py, C10dRendezvousBackend)
RUN_KEY = "torch.rendezvous.{run_id}"
_MEMO = {"MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"}


def run_closed(value: bytes) -> bool:
    """Whether a run's state in the store says it is closed: base64 of a pickled _RendezvousState
    (torch 2.13 dynamic_rendezvous.py) whose `closed` is True. Read with pickletools, which lists
    the pickle's opcodes and builds nothing from them: whatever a client wrote, nothing of it is
    loaded or run."""
    try:
        ops = [(op.name, arg) for op, arg, _ in pickletools.genops(base64.b64decode(value))]
    except Exception:  # noqa: BLE001 - not a pickled state (torch's first value is a sentinel)
        return False
    for index, (name, arg) in enumerate(ops):
        if arg == "closed" and name.endswith("UNICODE"):
            after = [name for name, _ in ops[index + 1 :] if name not in _MEMO]
            return bool(after) and after[0] == "NEWTRUE"
    return False


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rendezvous_store.py",
        description="Serve torchrun's c10d rendezvous store until the model is written.",
    )
    p.add_argument("--port", type=int, default=23456, help="TCP port to serve (default 23456)")
    p.add_argument(
        "--linger",
        type=float,
        default=30.0,
        help="seconds to keep serving once the model is written, for the agents to close the "
        "rendezvous (default 30)",
    )
    p.add_argument(
        "--poll", type=float, default=1.0, help="seconds between looks for the key (default 1)"
    )
    p.add_argument(
        "--run-id",
        default=os.environ.get("PET_RDZV_ID", "none"),
        help="the rendezvous run to watch (default: PET_RDZV_ID, else torchrun's 'none')",
    )
    return p


def serve(port: int, linger: float, poll: float, run_id: str = "none") -> int:
    if not 0 < port < 65536:
        print(f"[rendezvous-store] error: port {port} is not a TCP port", file=sys.stderr)
        return 1
    from torch.distributed import TCPStore

    try:
        store = TCPStore(
            "0.0.0.0", port, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60)
        )
    except (RuntimeError, OSError) as error:
        print(f"[rendezvous-store] error: cannot serve port {port}: {error}", file=sys.stderr)
        return 1
    print(f"[rendezvous-store] serving on port {port} until {MODEL_WRITTEN_KEY} is set", flush=True)
    run = RUN_KEY.format(run_id=run_id)
    while not store.check([MODEL_WRITTEN_KEY]):
        if store.check([run]) and run_closed(store.get(run)):
            print(
                f"[rendezvous-store] error: run {run_id!r} was closed before the model was "
                "written (an agent ended: its restarts spent, or a rendezvous timeout); exiting "
                "so that the Master restarts with an empty store",
                file=sys.stderr,
                flush=True,
            )
            return 1
        time.sleep(poll)
    written = store.get(MODEL_WRITTEN_KEY).decode(errors="replace")
    print(f"[rendezvous-store] model written ({written}); closing in {linger:g}s", flush=True)
    time.sleep(linger)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return serve(args.port, args.linger, args.poll, args.run_id)


if __name__ == "__main__":
    sys.exit(main())
