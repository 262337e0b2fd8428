"""Train the Bookstore recommender: item-item cosine kNN over synthetic orders.

Pipeline: deterministic synthetic Bookstore data (books, customers, orders) → customer × book
interaction matrix (sparse, binary) → book × book co-occurrence, built shard by shard (shards are
disjoint sets of customers, so partial co-occurrences simply add up) → cosine similarity → top-K
neighbours per book → model.joblib, written atomically.

Checkpoints (with --checkpoint-dir) are written atomically every --checkpoint-every shards and at
each phase boundary; a restarted run resumes from the newest checkpoint that verifies, and produces
the same model byte for byte. Co-occurrence counts are integers, so no summation order changes them.
A checkpoint holds shards [0, next_shard) whatever the number of ranks that wrote it, so a run
resumes one written by any other number of ranks (an elastic job that lost or regained a pod).

SIGTERM (preemption, a spot reclaim, a pod deleted, torchrun's agent restarting its workers): the
run stops at the end of the shard in hand (with --ray, of the checkpoint interval in hand), writes
a checkpoint of every shard finished, logs "terminated: checkpointed N/M shards to PATH, exiting
143" and exits 143 (128 + SIGTERM). Between ranks the stop is agreed after every shard, so SIGTERM
to any one rank stops them all at the same shard, and rank 0 writes the checkpoint. After the
co-occurrence phase a SIGTERM stops the run at the phase boundary; once the similarity is computed
the run finishes (writing the model is quick).

Distributed: with WORLD_SIZE > 1 (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE as the Training
Operator and Volcano's pytorch plugin set them), each rank builds the co-occurrence of its shards,
the partial matrices are summed on rank 0 — over NCCL when CUDA is present (each process on the
GPU of its LOCAL_RANK), else over gloo — and rank 0 writes the checkpoints and the model.
Where RANK or WORLD_SIZE is unset, they come from the launcher (the first variable set wins):
  - mpirun (an MPIJob's launcher): OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE (Open MPI), then
    PMI_RANK / PMI_SIZE (MPICH, Intel MPI); LOCAL_RANK from OMPI_COMM_WORLD_LOCAL_RANK or
    MPI_LOCALRANKID. MASTER_ADDR and MASTER_PORT still come from the environment (passed on by
    Open MPI's mpirun -x, MPICH's -genv).
  - a JobSet (one Indexed Job: a replicatedJob with replicas 1, as each Job counts from 0): RANK
    from JOB_COMPLETION_INDEX, which the Job controller sets to the pod's completion index; the
    manifest sets WORLD_SIZE, MASTER_PORT and MASTER_ADDR, the stable hostname of index 0,
    <jobset>-<replicatedJob>-0-0.<subdomain> (the subdomain is the JobSet's name unless
    spec.network.subdomain says otherwise).
The ranks still join with torch.distributed (env://); MPI only starts the processes.

Ray (--ray, in a RayJob): the shards of each checkpoint interval are Ray tasks spread over the
cluster (ray.init joins the cluster of RAY_ADDRESS, or starts a local one); their partial
co-occurrences add up to the same integers, so the model is the same file byte for byte.

Every flag has an environment fallback (TRAIN_<FLAG>, e.g. TRAIN_SEED), for manifests.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import joblib
import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recommender import ItemKNNModel  # noqa: E402  (the model class must pickle as `recommender.…`)

MODEL_FILE = "model.joblib"
EXIT_TERMINATED = 143  # 128 + SIGTERM, what Kubernetes expects of a pod stopped on purpose


@dataclass(frozen=True)
class Config:
    model_dir: str = "/workspace/model"
    checkpoint_dir: str | None = None
    seed: int = 42
    n_books: int = 200
    n_orders: int = 5000
    n_customers: int = 800
    top_k: int = 10
    shards: int = 16
    checkpoint_every: int = 4
    dist_timeout: float = 60.0
    ray: bool = False
    # HOST:PORT of a rendezvous store in a pod of its own (rendezvous_store.py): once the model is
    # written, rank 0 sets its key there, and the store's pod, the job's Master, exits 0.
    rendezvous_store: str | None = None
    # Seconds slept after each shard, so that tests can interrupt a small run mid-way; never set
    # in a manifest. It does not change the model (nor is it in the fingerprint).
    shard_delay: float = 0.0

    def data_fingerprint(self) -> dict:
        """What the co-occurrence depends on: a checkpoint from another config is never used."""
        return {
            "seed": self.seed,
            "n_books": self.n_books,
            "n_orders": self.n_orders,
            "n_customers": self.n_customers,
            "shards": self.shards,
        }


class TrainingError(Exception):
    """A problem the user can fix (bad flag, unreachable master): reported in one line, exit 1."""


# --------------------------------------------------------------------------- command line

_POSITIVE = {"n_books", "n_orders", "n_customers", "top_k", "shards", "checkpoint_every"}


def parser() -> argparse.ArgumentParser:
    defaults = Config()
    p = argparse.ArgumentParser(
        prog="train.py",
        description="Train the Bookstore item-kNN recommender and write model.joblib. "
        "Each flag falls back to the environment variable TRAIN_<FLAG> (e.g. TRAIN_SEED).",
    )
    for field in dataclasses.fields(Config):
        default = getattr(defaults, field.name)
        if isinstance(default, bool):
            p.add_argument(
                "--" + field.name.replace("_", "-"),
                dest=field.name,
                action="store_const",
                const=True,
                help=f"(env TRAIN_{field.name.upper()}=1; default off)",
            )
            continue
        p.add_argument(
            "--" + field.name.replace("_", "-"),
            dest=field.name,
            type=type(default) if isinstance(default, (int, float)) else str,
            help=f"(env TRAIN_{field.name.upper()}; default {default})",
        )
    return p


def parse_config(argv: list[str] | None = None) -> Config:
    """Flags first, then TRAIN_<FLAG> environment variables, then the defaults."""
    args = parser().parse_args(argv)
    defaults = Config()
    values = {}
    for field in dataclasses.fields(Config):
        value = getattr(args, field.name)
        default = getattr(defaults, field.name)
        env_name = f"TRAIN_{field.name.upper()}"
        if value is None and os.environ.get(env_name):
            value = os.environ[env_name]
            if isinstance(default, bool):
                value = value.lower() in ("1", "true", "yes")
            elif isinstance(default, (int, float)):
                try:
                    value = type(default)(value)
                except ValueError:
                    raise TrainingError(f"{env_name}={value!r} is not a number") from None
        values[field.name] = default if value is None else value
    config = Config(**values)
    for name in _POSITIVE:
        if getattr(config, name) < 1:
            raise TrainingError(
                f"--{name.replace('_', '-')} must be at least 1, not {getattr(config, name)}"
            )
    if config.shard_delay < 0:
        raise TrainingError(f"--shard-delay must not be negative, not {config.shard_delay}")
    if config.rendezvous_store is not None and _endpoint(config.rendezvous_store) is None:
        raise TrainingError(
            f"--rendezvous-store must be HOST:PORT, not {config.rendezvous_store!r}"
        )
    return config


def _endpoint(text: str) -> tuple[str, int] | None:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host, int(port)


# --------------------------------------------------------------------------- logging

_PREFIX = "[train]"


def log(message: str) -> None:
    print(f"{_PREFIX} {message}", flush=True)


# --------------------------------------------------------------------------- data


@dataclass
class Dataset:
    """Order lines: for line i, customer `customers[i]` bought book `books[i]` (0-based)."""

    n_books: int
    n_customers: int
    n_orders: int
    customers: np.ndarray
    books: np.ndarray


def generate(config: Config) -> Dataset:
    """Deterministic synthetic orders: customers favour one genre, books differ in popularity."""
    rng = np.random.default_rng(config.seed)
    n_genres = max(4, min(64, config.n_books // 20))
    genre_of_book = rng.integers(0, n_genres, config.n_books)
    popularity = 1.0 / np.arange(1, config.n_books + 1) ** 0.8
    rng.shuffle(popularity)

    # Sampling a book of a given genre by popularity: order books by genre, and give each genre
    # g the key range [g, g + 1) split by cumulative popularity; g + u then falls on a book of g.
    by_genre = np.lexsort((np.arange(config.n_books), genre_of_book))
    genres_sorted = genre_of_book[by_genre]
    weights = popularity[by_genre]
    genre_totals = np.bincount(genres_sorted, weights=weights, minlength=n_genres)
    cumulative = (
        np.cumsum(weights) - np.concatenate(([0.0], np.cumsum(genre_totals)[:-1]))[genres_sorted]
    )
    keys = genres_sorted + cumulative / genre_totals[genres_sorted]
    present_genres = np.flatnonzero(genre_totals > 0)

    favourite = present_genres[rng.integers(0, present_genres.size, config.n_customers)]
    activity = rng.lognormal(0.0, 0.75, config.n_customers)
    order_customer = rng.choice(
        config.n_customers, size=config.n_orders, p=activity / activity.sum()
    )
    basket = np.minimum(1 + rng.poisson(1.5, config.n_orders), 5)

    line_customer = np.repeat(order_customer, basket)
    from_favourite = rng.random(line_customer.size) < 0.7
    random_genre = present_genres[rng.integers(0, present_genres.size, line_customer.size)]
    line_genre = np.where(from_favourite, favourite[line_customer], random_genre)
    u = rng.random(line_customer.size)
    slot = np.searchsorted(keys, line_genre + u, side="left")
    slot = np.minimum(slot, config.n_books - 1)
    line_book = by_genre[slot]
    return Dataset(config.n_books, config.n_customers, config.n_orders, line_customer, line_book)


def interactions(data: Dataset) -> sp.csr_matrix:
    """Binary customer × book matrix: 1 where the customer bought the book at least once."""
    # int32 holds any count here (at most n_customers) and halves the co-occurrence's memory.
    ones = np.ones(data.customers.size, dtype=np.int32)
    matrix = sp.csr_matrix(
        (ones, (data.customers, data.books)), shape=(data.n_customers, data.n_books)
    )
    matrix.sum_duplicates()
    matrix.data[:] = 1
    return matrix


def shard_cooccurrence(matrix: sp.csr_matrix, shard: int, shards: int) -> sp.csr_matrix:
    """Book × book co-purchase counts among the customers of one shard (customer id % shards)."""
    rows = matrix[np.arange(shard, matrix.shape[0], shards)]
    return (rows.T @ rows).tocsr()


# --------------------------------------------------------------------------- checkpoints


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        h.update(name.encode())
        h.update(np.ascontiguousarray(arrays[name]).tobytes())
    return h.hexdigest()


def _atomic_write(path: Path, write) -> None:
    """Write a temporary file beside `path`, then rename it into place. Its name is made unique by
    mkstemp (O_EXCL), not by the process id: the pods writing one volume (the Job, the Volcano
    master, every rank 0) each have their own PID namespace, where the entrypoint is pid 1."""
    descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), 0o644)  # as open() makes it under the usual umask
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


class Checkpoints:
    """Verified, atomically written checkpoints in one folder (or none, without a folder)."""

    KEEP = 2  # the newest good one may still turn out unreadable; keep one before it

    def __init__(self, folder: str | None, config: Config):
        self.folder = Path(folder) if folder else None
        self.fingerprint = config.data_fingerprint()
        if self.folder:
            self.folder.mkdir(parents=True, exist_ok=True)

    def save(self, name: str, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        if self.folder is None:
            return
        header = {"fingerprint": self.fingerprint, "digest": _digest(arrays), **meta}
        payload = {**arrays, "header": np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)}
        _atomic_write(self.path(name), lambda handle: np.savez(handle, **payload))

    def path(self, name: str) -> Path | None:
        return self.folder / f"{name}.npz" if self.folder else None

    def load(self, name: str) -> tuple[dict, dict[str, np.ndarray]] | None:
        """The checkpoint's header and arrays, or None (with a warning) unless it verifies."""
        if self.folder is None:
            return None
        path = self.folder / f"{name}.npz"
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as stored:
                arrays = {key: stored[key] for key in stored.files}
            header = json.loads(arrays.pop("header").tobytes().decode())
            if header.get("fingerprint") != self.fingerprint:
                raise ValueError("it was written for another configuration")
            if header.get("digest") != _digest(arrays):
                raise ValueError("its contents do not match its checksum")
        except Exception as error:  # any unreadable checkpoint is skipped, never trusted
            log(f"warning: skipping checkpoint {path}: {error}")
            return None
        return header, arrays

    def names(self, prefix: str) -> list[str]:
        """Checkpoint names with this prefix, newest (highest number) first."""
        if self.folder is None:
            return []
        return sorted((p.stem for p in self.folder.glob(f"{prefix}-*.npz")), reverse=True)

    def prune(self, prefix: str, keep: int = KEEP) -> None:
        for stale in self.names(prefix)[keep:]:
            (self.folder / f"{stale}.npz").unlink(missing_ok=True)


def _matrix_arrays(matrix: sp.csr_matrix) -> dict[str, np.ndarray]:
    return {"data": matrix.data, "indices": matrix.indices, "indptr": matrix.indptr}


def _matrix_from(arrays: dict[str, np.ndarray], n_books: int) -> sp.csr_matrix:
    return sp.csr_matrix(
        (arrays["data"], arrays["indices"], arrays["indptr"]), shape=(n_books, n_books)
    )


# --------------------------------------------------------------------------- distributed


@dataclass(frozen=True)
class World:
    rank: int = 0
    size: int = 1
    device: str = "cpu"  # where collectives' tensors live: "cuda" under NCCL

    @property
    def is_main(self) -> bool:
        return self.rank == 0


# Where each launcher tells a process its rank, the number of processes and its rank on the node,
# in order of precedence: torchrun and the Training Operator, then mpirun (Open MPI, then MPICH and
# Intel MPI's Hydra), then an Indexed Job's completion index (a JobSet's pods).
RANK_VARIABLES = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "JOB_COMPLETION_INDEX")
SIZE_VARIABLES = ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
LOCAL_RANK_VARIABLES = ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID")


def _first_set(environ, names: tuple[str, ...]) -> tuple[str, str] | None:
    """(name, value) of the first of `names` set to a non-empty value, or None."""
    for name in names:
        if environ.get(name):
            return name, environ[name]
    return None


def _as_int(found: tuple[str, str]) -> int:
    name, value = found
    try:
        return int(value)
    except ValueError:
        raise TrainingError(f"{name}={value!r} is not a number") from None


def world_size_from(environ) -> int:
    found = _first_set(environ, SIZE_VARIABLES)
    return _as_int(found) if found else 1


def rank_from(environ) -> int | None:
    found = _first_set(environ, RANK_VARIABLES)
    return _as_int(found) if found else None


def local_rank_from(environ) -> int:
    found = _first_set(environ, LOCAL_RANK_VARIABLES)
    return _as_int(found) if found else 0


def join_world(config: Config) -> World:
    """Join the torch.distributed gloo group when WORLD_SIZE > 1; fail clearly within the timeout."""
    size = world_size_from(os.environ)
    if size <= 1:
        return World()
    rank = rank_from(os.environ)
    missing = [name for name in ("MASTER_ADDR", "MASTER_PORT") if not os.environ.get(name)]
    if rank is None:
        missing.append("RANK")
    if missing:
        raise TrainingError(
            f"WORLD_SIZE={size} but {', '.join(missing)} not set: run under a PyTorchJob or torchrun"
        )
    if not 0 <= rank < size:
        raise TrainingError(f"rank {rank} is outside a world of {size} processes")
    # c10d logs every failed connect with a C++ stack trace; our one-line error carries the cause.
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "FATAL")
    try:
        import torch.distributed as dist
    except ImportError:
        raise TrainingError(
            f"WORLD_SIZE={size} needs torch: pip install -r requirements-torch.txt"
        ) from None
    address = f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}"
    backend = backend_for(torch_cuda_available())
    global _PREFIX
    _PREFIX = f"[train rank {rank}/{size}]"
    log(
        f"joining {size} processes through the master at {address} over {backend} (timeout {config.dist_timeout:g}s)"
    )
    try:
        # env:// rather than tcp://: under torchrun the agent already serves the store on
        # MASTER_PORT and env:// joins it; without torchrun it reads the same four variables.
        if backend == "nccl":
            import torch

            # One process per GPU: torchrun numbers the processes of a node by LOCAL_RANK.
            torch.cuda.set_device(local_rank_from(os.environ))
        # The rank and size are passed: env:// would read RANK and WORLD_SIZE, which mpirun and
        # an Indexed Job do not set.
        dist.init_process_group(
            backend,
            init_method="env://",
            rank=rank,
            world_size=size,
            timeout=timedelta(seconds=config.dist_timeout),
        )
    except Exception as error:  # torch raises several types for "could not rendezvous"
        cause = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise TrainingError(
            f"rank {rank} could not join the group at {address} (timeout {config.dist_timeout:g}s): {cause}"
        ) from None
    return World(rank, size, "cuda" if backend == "nccl" else "cpu")


def torch_cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def backend_for(cuda: bool) -> str:
    """NCCL between GPUs (the CUDA image); gloo on CPU, where NCCL cannot run."""
    return "nccl" if cuda else "gloo"


def sum_on_main(matrix: sp.csr_matrix, world: World) -> sp.csr_matrix | None:
    """Every rank's sparse integer matrix summed on rank 0 (gathered as COO; sums are exact);
    None on the other ranks, which need no copy of it."""
    import torch.distributed as dist

    coo = matrix.tocoo()
    gathered: list | None = [None] * world.size if world.is_main else None
    dist.gather_object((coo.row, coo.col, coo.data, coo.shape), gathered, dst=0)
    if not world.is_main:
        return None
    total = sp.csr_matrix(matrix.shape, dtype=np.int32)
    for row, col, data, shape in gathered:
        total = total + sp.csr_matrix((data, (row, col)), shape=shape)
    return total.tocsr()


def any_rank_terminated(world: World) -> bool:
    """Whether SIGTERM has reached this rank or any other. Every rank calls it at the same point,
    so all of them stop together: a rank left alone would wait in the next collective until
    --dist-timeout, and the kubelet may signal one pod (a node reclaimed) or all (a job evicted)."""
    if world.size == 1:
        return _terminate_requested
    import torch
    import torch.distributed as dist

    flag = torch.tensor([int(_terminate_requested)], device=world.device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag.item())


def broadcast_from_main(value, world: World):
    if world.size == 1:
        return value
    import torch.distributed as dist

    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def leave_world(world: World) -> None:
    if world.size > 1:
        import torch.distributed as dist

        dist.destroy_process_group()


# --------------------------------------------------------------------------- phases


class Terminated(Exception):
    """SIGTERM arrived (preemption, eviction): the run stopped at a shard or phase boundary, having
    checkpointed what it finished. The message says what was saved where."""


_terminate_requested = False


def _on_sigterm(signum, frame) -> None:
    # Only a flag: the loop stops at the end of the shard in hand, where a checkpoint is whole.
    global _terminate_requested
    _terminate_requested = True


def _shard_checkpoint(finished: int) -> str:
    return f"cooccurrence-shard-{finished:05d}"


def _stopped(config: Config, world: World, finished: int, saved: Path | None) -> Terminated:
    """What a rank says when the ranks agree to stop after `finished` shards; `saved` is the
    checkpoint rank 0 wrote (the other ranks know its name, as they agreed on `finished`)."""
    done = f"{finished}/{config.shards} shards"
    if not config.checkpoint_dir:
        message = f"no --checkpoint-dir: {done} done, none saved"
    elif world.is_main:
        message = f"checkpointed {done} to {saved}"
    else:
        saved = Path(config.checkpoint_dir) / f"{_shard_checkpoint(finished)}.npz"
        message = f"rank 0 checkpointed {done} to {saved}"
    if not _terminate_requested:
        message += " (SIGTERM reached another rank)"
    return Terminated(message)


def _collect(
    total: sp.csr_matrix | None, pending: sp.csr_matrix, world: World, empty: sp.csr_matrix
) -> tuple[sp.csr_matrix | None, sp.csr_matrix]:
    """Rank 0's total with every rank's shards since the last call added, and the matrix each
    rank goes on adding its shards to: alone, the total itself (no second copy of a large
    matrix); with other ranks, an empty one."""
    if world.size == 1:
        return pending, pending
    partial = sum_on_main(pending, world)
    if world.is_main:
        total = partial if total.nnz == 0 else total + partial
    return total, empty


def build_cooccurrence(
    config: Config, matrix: sp.csr_matrix, store: Checkpoints, world: World
) -> sp.csr_matrix | None:
    """The book × book co-occurrence of every shard, on rank 0 (None on the other ranks)."""
    empty = sp.csr_matrix((config.n_books, config.n_books), dtype=np.int32)
    start, total = 0, empty if world.is_main else None
    if world.is_main:
        done = store.load("cooccurrence")
        if done:
            log("resuming: co-occurrence phase already complete")
            start, total = config.shards, _matrix_from(done[1], config.n_books)
        else:
            for name in store.names("cooccurrence-shard"):
                found = store.load(name)
                if found:
                    start, total = found[0]["next_shard"], _matrix_from(found[1], config.n_books)
                    log(f"resuming from checkpoint {name}: shards {start}/{config.shards} done")
                    break
    start = broadcast_from_main(start, world)
    if start >= config.shards:
        return total

    if config.ray:
        total = ray_cooccurrence(config, matrix, store, start, total)
        store.save("cooccurrence", {}, _matrix_arrays(total))
        store.prune("cooccurrence-shard", keep=0)
        return total

    # Rounds of one shard a rank: in the round from `first`, rank r takes shard first + r. After
    # each round the ranks agree whether to stop; at a checkpoint or a stop rank 0 adds up what
    # every rank did since the last one, so a checkpoint always covers shards [0, finished).
    pending = total if world.size == 1 else empty
    saved_at = start
    for first in range(start, config.shards, world.size):
        shard = first + world.rank
        if shard < config.shards:
            pending = pending + shard_cooccurrence(matrix, shard, config.shards)
            if config.shard_delay:
                time.sleep(config.shard_delay)
        finished = min(first + world.size, config.shards)
        stop = any_rank_terminated(world)
        due = finished - saved_at >= config.checkpoint_every and finished < config.shards
        saved = None
        if config.checkpoint_dir and (due or stop):
            total, pending = _collect(total, pending, world, empty)
            saved_at = finished
            if world.is_main:
                name = _shard_checkpoint(finished)
                store.save(name, {"next_shard": finished}, _matrix_arrays(total))
                store.prune("cooccurrence-shard")
                saved = store.path(name)
        if stop:
            raise _stopped(config, world, finished, saved)
    total, _ = _collect(total, pending, world, empty)
    if not world.is_main:
        return None
    store.save("cooccurrence", {}, _matrix_arrays(total))
    store.prune("cooccurrence-shard", keep=0)  # the phase checkpoint supersedes them
    return total


def ray_cooccurrence(
    config: Config, matrix: sp.csr_matrix, store: Checkpoints, start: int, total: sp.csr_matrix
) -> sp.csr_matrix:
    """The remaining shards as Ray tasks, a checkpoint interval at a time (checkpoints as the
    sequential run writes them, so either can resume the other)."""
    try:
        import ray
    except ImportError:
        raise TrainingError(
            "--ray needs Ray: run in the train-ray image, or pip install ray"
        ) from None
    if not ray.is_initialized():
        if os.environ.get("RAY_ADDRESS"):  # KubeRay sets it for a RayJob's entrypoint
            ray.init(log_to_driver=False)
        else:
            ray.init(include_dashboard=False, log_to_driver=False)
    resources = ray.cluster_resources()
    log(f"ray: {resources.get('CPU', 0):g} CPUs on {len(ray.nodes())} node(s)")
    task = ray.remote(num_cpus=1)(shard_cooccurrence)
    shared = ray.put(matrix)  # one copy in the object store, read by every task
    remaining = list(range(start, config.shards))
    for first in range(0, len(remaining), config.checkpoint_every):
        batch = remaining[first : first + config.checkpoint_every]
        for part in ray.get([task.remote(shared, shard, config.shards) for shard in batch]):
            total = total + part
        finished = batch[-1] + 1
        if finished < config.shards:
            store.save(_shard_checkpoint(finished), {"next_shard": finished}, _matrix_arrays(total))
            store.prune("cooccurrence-shard")
            if _terminate_requested:
                raise _stopped(config, World(), finished, store.path(_shard_checkpoint(finished)))
    return total.tocsr()


def top_neighbours(
    cooccurrence: sp.csr_matrix, top_k: int, block_rows: int = 2048
) -> tuple[np.ndarray, np.ndarray]:
    """Each book's top-K by cosine similarity, ties broken by the smaller book id.

    Rows are ranked a block at a time so the sort's scratch memory stays bounded for large catalogues.
    """
    n_books = cooccurrence.shape[0]
    counts = cooccurrence.diagonal().astype(np.float64)  # customers who bought each book
    ids = np.zeros((n_books, top_k), dtype=np.int32)
    values = np.zeros((n_books, top_k), dtype=np.float64)
    for first in range(0, n_books, block_rows):
        block = cooccurrence[first : first + block_rows].tocoo()
        rows = block.row + first
        keep = (rows != block.col) & (block.data > 0)
        rows, cols, shared = rows[keep], block.col[keep], block.data[keep]
        scores = shared / np.sqrt(counts[rows] * counts[cols])
        order = np.lexsort((cols, -scores, rows))
        rows, cols, scores = rows[order], cols[order], scores[order]
        row_starts = np.searchsorted(rows, np.arange(first, min(first + block_rows, n_books)))
        position = np.arange(rows.size) - row_starts[rows - first]
        top = position < top_k
        ids[rows[top], position[top]] = cols[top] + 1  # book ids are 1-based
        values[rows[top], position[top]] = scores[top]
    return ids, values


def write_model(model: ItemKNNModel, model_dir: Path) -> Path:
    model_dir.mkdir(parents=True, exist_ok=True)
    target = model_dir / MODEL_FILE
    _atomic_write(target, lambda handle: joblib.dump(model, handle))
    return target


def train(config: Config) -> Path | None:
    """Run the whole pipeline; returns the model path on rank 0 (None on other ranks)."""
    started = time.perf_counter()
    if config.ray and world_size_from(os.environ) > 1:
        raise TrainingError(
            "--ray spreads the work over Ray tasks: run it once, not under torchrun"
        )
    world = join_world(config)
    try:
        ids_scores = neighbours_phase(config, world)
    except Terminated:
        leave_world(world)  # every rank agreed to stop here: none is left in a collective
        raise
    leave_world(world)
    if not world.is_main:
        log("done: rank 0 writes the model")
        return None

    params = {**config.data_fingerprint(), "top_k": config.top_k}
    del params["shards"]  # how the work was split does not change the model
    model = ItemKNNModel(ids_scores[0], ids_scores[1], params)
    path = write_model(model, Path(config.model_dir))
    log(f"wrote {path} (size={path.stat().st_size} bytes) in {time.perf_counter() - started:.2f}s")
    log(f"sample: neighbours(book_id=1) top-3 = {model.neighbours(1, 3)}")
    if config.rendezvous_store:
        tell_rendezvous_store(config.rendezvous_store, path, config.dist_timeout)
    return path


def tell_rendezvous_store(endpoint: str, path: Path, timeout: float) -> None:
    """Set rendezvous_store.py's key in the store at HOST:PORT: the model is written."""
    found = _endpoint(endpoint)
    if found is None:
        raise TrainingError(f"--rendezvous-store must be HOST:PORT, not {endpoint!r}")
    from rendezvous_store import MODEL_WRITTEN_KEY
    from torch.distributed import TCPStore

    try:
        store = TCPStore(*found, is_master=False, timeout=timedelta(seconds=timeout))
        store.set(MODEL_WRITTEN_KEY, str(path))
    except (RuntimeError, OSError) as error:  # torch raises DistNetworkError, a RuntimeError
        raise TrainingError(
            f"the model is written, but the rendezvous store at {endpoint} could not be told "
            f"(timeout {timeout:g}s): {error}"
        ) from error
    log(f"told the rendezvous store at {endpoint}: the model is written")


def neighbours_phase(config: Config, world: World) -> tuple[np.ndarray, np.ndarray] | None:
    """Each book's top-K (ids, scores) on rank 0, from the checkpoints where they allow; None on
    the other ranks."""
    if world.is_main:
        log(f"config={config}")
    store = Checkpoints(config.checkpoint_dir if world.is_main else None, config)

    ids_scores = None
    if world.is_main:
        found = store.load("neighbours")
        if found and found[0].get("top_k") == config.top_k:
            log("resuming: similarity phase already complete")
            ids_scores = (found[1]["ids"], found[1]["scores"])
    skip_to_model = broadcast_from_main(ids_scores is not None, world)

    if not skip_to_model:
        log(
            f"generating {config.n_books} books / {config.n_orders} orders across {config.n_customers} synthetic customers"
        )
        data = generate(config)
        log(f"dataset: books={data.n_books} orders={data.n_orders} order_lines={data.books.size}")
        log("building customer x book interaction matrix")
        matrix = interactions(data)
        log(f"interactions: shape={matrix.shape} nnz={matrix.nnz}")
        log(f"co-occurrence over {config.shards} customer shards")
        cooccurrence = build_cooccurrence(config, matrix, store, world)
        if world.is_main:
            if _terminate_requested:  # the other ranks are done: rank 0 alone decides here
                saved = store.path("cooccurrence")
                raise Terminated(
                    f"checkpointed {config.shards}/{config.shards} shards to {saved}"
                    if saved
                    else "no --checkpoint-dir: the co-occurrence phase was done and not saved"
                )
            log(f"computing item-item cosine similarity, top_k={config.top_k}")
            ids_scores = top_neighbours(cooccurrence, config.top_k)
            store.save(
                "neighbours",
                {"top_k": config.top_k},
                {"ids": ids_scores[0], "scores": ids_scores[1]},
            )
    return ids_scores


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        train(parse_config(argv))
    except TrainingError as error:
        print(f"{_PREFIX} error: {error}", file=sys.stderr, flush=True)
        return 1
    except Terminated as stop:
        log(f"terminated: {stop}, exiting {EXIT_TERMINATED}")
        return EXIT_TERMINATED
    return 0


if __name__ == "__main__":
    sys.exit(main())
