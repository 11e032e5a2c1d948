"""`torchrun --no-python graddoctor run` on 2 CPU ranks (gloo): GD401, GD402, merged report, exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Two ranks (two processes) per test: in one xdist group, so that `make test -n 2` never runs two
# multi-rank jobs at once on 2 cores (4 busy processes, and gloo's timeouts under that load).
pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.xdist_group("ranks")]
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

PRELUDE = """
import os
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=float(os.environ.get("GLOO_TIMEOUT_S", 20))))  # a stuck test ends
rank = dist.get_rank()
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 2)  # not used by forward

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


"""


class Ranks:
    """What each rank printed and returned, and rank 0's JSON report."""

    def __init__(self, path: Path, proc: subprocess.CompletedProcess, nproc: int = 2):
        self.proc = proc
        ranks = range(nproc)
        self.codes = {r: int((path / f"rc.{r}").read_text()) for r in ranks if (path / f"rc.{r}").exists()}
        self.out = {r: (path / f"out.{r}").read_text() for r in ranks if (path / f"out.{r}").exists()}
        self.err = {r: (path / f"err.{r}").read_text() for r in ranks if (path / f"err.{r}").exists()}
        report = path / "report.json"
        self.report = json.loads(report.read_text()) if report.exists() else None
        self.json_files = sorted(p.name for p in path.glob("report*.json"))

    def findings(self, code: str) -> list[dict]:
        return [f for f in self.report["findings"] if f["code"] == code]

    def __repr__(self) -> str:
        return f"codes={self.codes}\n--- out ---\n{self.out}\n--- err ---\n{self.err}\n{self.proc.stdout}\n{self.proc.stderr}"


@pytest.fixture
def torchrun(tmp_path):
    if shutil.which("graddoctor", path=str(BIN)) is None:
        pytest.skip("the graddoctor console script is not installed next to this Python")

    def run(body: str, *options: str, trap: bool = True, timeout_s: str = "60", nproc: int = 2, **env_extra: str) -> Ranks:
        script = PRELUDE + textwrap.dedent(body)
        (tmp_path / "train.py").write_text(script)
        # Each rank runs the real `graddoctor run`; the shell only records its exit code and output
        # (and ignores torchrun's SIGTERM, which it sends to the shell, to outlive its child).
        command = (
            ('trap "" TERM; ' if trap else "") + f'graddoctor run {" ".join(options)} train.py > out.$RANK 2> err.$RANK; '
            'code=$?; date +%s.%N > done.$RANK; echo $code > rc.$RANK; exit $code'
        )
        env = dict(
            os.environ, PYTHONPATH=str(ROOT / "src"), PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            NO_COLOR="1", COLUMNS="120", OMP_NUM_THREADS="1", GRADDOCTOR_DIST_TIMEOUT=timeout_s, **env_extra,
        )
        proc = subprocess.run(
            [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(nproc),
             "--no-python", "sh", "-c", command],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180,
        )
        return Ranks(tmp_path, proc, nproc)

    run.path = tmp_path
    return run


def line_of(script_body: str, marker: str) -> int:
    lines = (PRELUDE + textwrap.dedent(script_body)).splitlines()
    return next(n for n, text in enumerate(lines, 1) if text.rstrip().endswith(f"# <- {marker}"))


UNUSED = """
model = DDP(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)  # <- forward
    loss.backward()  # <- backward
    opt.step()
dist.destroy_process_group()
"""


def test_unused_parameter_under_ddp_fires_gd401_on_every_rank(torchrun):
    ran = torchrun(UNUSED, "--json", "report.json")
    assert ran.codes == {0: 1, 1: 1}, ran
    (finding,) = ran.findings("GD401")
    assert finding["subjects"] == ["model.aux.weight", "model.aux.bias"]
    assert ran.findings("GD104") == []  # the same fact, said once, the DDP way (GD401 supersedes it)
    assert finding["file"] == "train.py" and finding["line"] == line_of(UNUSED, "backward")
    assert {"file": "train.py", "line": line_of(UNUSED, "forward"), "note": "the next forward pass raised here"} in finding["related"]
    assert "rank" not in finding  # rank 0's own; rank 1's identical diagnosis is not repeated
    assert ran.report["status"] == "crashed"
    assert "Expected to have finished reduction" in ran.report["exception"]["message"]
    assert "GD401" in ran.out[0] and "GD401" not in ran.out.get(1, "")  # only rank 0 prints the report
    assert ran.json_files == ["report.json"]


GOOD = """
net = Net()
net.aux.requires_grad_(False)  # frozen unused head: DDP ignores it
model = DDP(net)
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
for step in range(4):
    g = torch.Generator().manual_seed(100 * rank + step)  # each rank its own data
    x, y = torch.randn(8, 4, generator=g), torch.randn(8, 1, generator=g)
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
dist.destroy_process_group()
"""


def test_correct_ddp_with_frozen_unused_head_is_silent_on_every_rank(torchrun):
    ran = torchrun(GOOD, "--json", "report.json")
    assert ran.codes == {0: 0, 1: 0}, ran
    assert [f for f in ran.report["findings"] if f["severity"] in ("error", "warning")] == [], ran
    assert ran.report["status"] == "completed" and ran.report["steps_observed"] == 4


DIVERGED = """
model = DDP(Net(), find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    g = torch.Generator().manual_seed(100 * rank + step)
    x, y = torch.randn(8, 4, generator=g), torch.randn(8, 1, generator=g)
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()  # <- step
    if rank == 1 and step == 1:
        model.module.head.weight.data.mul_(0.5)  # one replica edited behind DDP's back
dist.destroy_process_group()
"""


def test_replicas_that_diverge_fire_gd402_and_every_rank_exits_1(torchrun):
    ran = torchrun(DIVERGED, "--json", "report.json", "--fail-on", "error")
    assert ran.codes == {0: 1, 1: 1}, ran
    (finding,) = ran.findings("GD402")
    assert finding["subjects"] == ["model.head.weight"]
    assert finding["step"] == 3  # sampled after steps 1, 2, 3: the edit follows step 2's sample
    assert finding["file"] == "train.py" and finding["line"] == line_of(DIVERGED, "step")
    assert ran.report["status"] == "completed"
    # find_unused_parameters=True hides the crash, not the unused parameters
    assert [f["subjects"] for f in ran.findings("GD401")] == [["model.aux.weight", "model.aux.bias"]]


ALONE = """
import os
import torch
from torch import nn

rank = int(os.environ["RANK"])
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
extra = nn.Linear(8, 2)
params = list(net.parameters()) + (list(extra.parameters()) if rank == 1 else [])
opt = torch.optim.SGD(params, lr=0.1)
for step in range(2):
    opt.zero_grad()
    nn.functional.mse_loss(net(torch.randn(8, 4)), torch.randn(8, 1)).backward()
    opt.step()
"""


def test_without_torchrun_agent_ranks_meet_through_a_file_store(tmp_path):
    """Another launcher (RANK/WORLD_SIZE only, no agent store): the FileStore fallback on one machine."""
    (tmp_path / "train.py").write_text(ALONE)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1", WORLD_SIZE="2", MASTER_ADDR="localhost",
               MASTER_PORT=str(40000 + os.getpid() % 20000), TORCHELASTIC_RUN_ID=f"t{os.getpid()}{id(tmp_path)}")
    env.pop("TORCHELASTIC_USE_AGENT_STORE", None)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "graddoctor", "run", *(["--json", "report.json"] if r == 0 else []), "train.py"],
            cwd=tmp_path, env=dict(env, RANK=str(r)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for r in (0, 1)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    codes = [p.returncode for p in procs]
    report = json.loads((tmp_path / "report.json").read_text())
    unused = [f for f in report["findings"] if f["code"] == "GD104"]
    # rank 1's optimizer holds `extra`, which the loss never reaches; rank 0's does not
    assert [(f.get("rank"), [s.rsplit(".", 1)[-1] for s in f["subjects"]]) for f in unused] == [(1, ["weight", "bias"])], outs
    assert codes == [1, 1], outs
    assert "GD104" in outs[0][0] and outs[1][0] == ""


CRASH_ON_RANK_1 = """
model = DDP(Net(), find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    out = model(torch.randn(8, 4))
    if rank == 1:
        raise ValueError("rank 1 data is corrupt")  # <- raise
    nn.functional.mse_loss(out, torch.randn(8, 1)).backward()  # rank 0 waits here for rank 1
    opt.step()
"""


def test_a_rank_that_crashed_while_rank_0_is_blocked_reports_for_itself(torchrun):
    ran = torchrun(CRASH_ON_RANK_1, trap=False)
    assert ran.codes.get(1) == 1, ran
    out = ran.out[1]
    assert "rank 1's report alone" in out and "ValueError" in out, ran
    assert f"train.py:{line_of(CRASH_ON_RANK_1, 'raise')}" in out


DIES_ON_RANK_1 = """
import os

model = DDP(Net(), find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    out = model(torch.randn(8, 4))
    if rank == 1 and step == 1:
        os._exit(1)  # killed: no exception, no report, nothing sent
    nn.functional.mse_loss(out, torch.randn(8, 1)).backward()  # <- backward
    opt.step()
"""


@pytest.mark.parametrize("where", ["in a collective", "after training"])
def test_a_rank_that_dies_does_not_hang_rank_0s_report(torchrun, where):
    """Rank 1 vanishes (os._exit): rank 0 waits a bounded time (GRADDOCTOR_DIST_TIMEOUT), then reports
    what it has and names the missing rank. The shell wrapper ignores torchrun's SIGTERM, as a rank
    still writing its report does (Gathered.done); a SIGTERM during training is the signal handling's case."""
    body = DIES_ON_RANK_1 if where == "in a collective" else DIES_ON_RANK_1.replace(
        "    if rank == 1 and step == 1:\n        os._exit(1)  # killed: no exception, no report, nothing sent\n", ""
    ) + "if rank == 1:\n    os._exit(1)\n"
    ran = torchrun(body, "--json", "report.json", timeout_s="10")
    assert ran.codes == {0: 1, 1: 1}, ran
    out = ran.out[0]
    assert "Rank 1 did not report" in out, ran
    assert ran.report is not None and ran.report["findings"] is not None
    if where == "in a collective":
        # rank 0's own backward() failed when its peer vanished: reported at the user's line
        assert ran.report["status"] == "crashed"
        assert ran.report["exception"]["line"] == line_of(DIES_ON_RANK_1, "backward"), ran


# --- four ranks ------------------------------------------------------------------------------------

FOUR_RANKS = """
extra = nn.ModuleDict({f"rank{rank}": nn.Linear(8, 2)})  # each rank its own, outside DDP, never used
model = DDP(Net(), find_unused_parameters=True)
opt = torch.optim.SGD(list(model.parameters()) + list(extra.parameters()), lr=0.1)
for step in range(3):
    g = torch.Generator().manual_seed(100 * rank + step)
    x, y = torch.randn(8, 4, generator=g), torch.randn(8, 1, generator=g)
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()  # <- backward
    opt.step()  # <- step
    if rank in DRIFTING and step == 1:
        model.module.head.weight.data.mul_(0.5)  # replicas edited behind DDP's back
dist.destroy_process_group()
"""


@pytest.mark.parametrize("drifting, named", [((3,), "rank 3"), ((1, 3), "ranks 1 and 3")])
def test_four_ranks_merge_every_ranks_findings_and_gd402_names_the_ranks_that_drifted(torchrun, drifting, named):
    body = FOUR_RANKS.replace("DRIFTING", repr(drifting))
    ran = torchrun(body, "--json", "report.json", "--fail-on", "error", nproc=4)
    assert ran.codes == {0: 1, 1: 1, 2: 1, 3: 1}, ran
    assert ran.report["status"] == "completed" and "did not report" not in ran.out[0], ran  # every rank answered
    # each rank's own unused `extra` module: one GD104 per rank, the others' marked with their rank
    own = {f.get("rank", 0): f["subjects"] for f in ran.findings("GD104")}
    assert own == {r: [f"extra.rank{r}.weight", f"extra.rank{r}.bias"] for r in range(4)}, ran
    # the same diagnosis on every rank (DDP's unused `aux`) is said once, as rank 0's
    (unused,) = ran.findings("GD401")
    assert unused["subjects"] == ["model.aux.weight", "model.aux.bias"] and "rank" not in unused
    (drift,) = ran.findings("GD402")
    assert drift["subjects"] == ["model.head.weight"] and drift["step"] == 3
    assert f"differs between rank 0 and {named}: " in drift["message"], drift["message"]
    assert (drift["file"], drift["line"]) == ("train.py", line_of(body, "step"))
    assert "GD402" in ran.out[0] and all(ran.out[r] == "" for r in (1, 2, 3))  # one report, on rank 0
    assert ran.json_files == ["report.json"]


KILLED = """
import os
import signal
import time

extra = nn.ModuleDict({f"rank{rank}": nn.Linear(8, 2)})  # each rank its own, never used: its GD104 says it reported
model = DDP(Net(), find_unused_parameters=True)
opt = torch.optim.SGD(list(model.parameters()) + list(extra.parameters()), lr=0.1)
try:
    for step in range(3):
        opt.zero_grad()
        out = model(torch.randn(8, 4))
        if rank == 2 and step == 1 and IN_COLLECTIVE:
            os.kill(os.getpid(), signal.SIGKILL)  # killed mid-training: the others block in backward's all-reduce
        nn.functional.mse_loss(out, torch.randn(8, 1)).backward()
        opt.step()
finally:
    with open(f"end.{rank}", "w") as f:
        f.write(repr(time.time()))  # the script is over; graddoctor's wait begins
if rank in (1, 3) and not IN_COLLECTIVE:
    os._exit(1)  # vanish after training: no exception, no report, nothing sent
"""


@pytest.mark.parametrize("where, missing", [("in a collective", "Rank 2"), ("after training", "Ranks 1 and 3")])
def test_four_ranks_with_killed_ranks_rank_0_reports_within_the_timeout_and_names_them(torchrun, where, missing):
    body = KILLED.replace("IN_COLLECTIVE", str(where == "in a collective"))
    # torchrun kills the surviving ranks 30 s after the first one dies: the survivors' gloo timeout (the
    # time they may stay blocked in the all-reduce) plus graddoctor's waits after a crash fit inside it.
    ran = torchrun(body, "--json", "report.json", timeout_s="10", nproc=4,
                   GLOO_TIMEOUT_S="8", GRADDOCTOR_DIST_CRASH_TIMEOUT="5")
    assert ran.report is not None, ran
    out = " ".join(ran.out[0].split())  # the terminal report, unwrapped
    assert f"{missing} did not report: killed, hung, or still running" in out, ran
    gone = {2} if where == "in a collective" else {1, 3}
    reported = {f.get("rank", 0) for f in ran.findings("GD104")}
    assert reported == {0, 1, 2, 3} - gone, ran  # every rank still alive was merged
    assert ran.codes[0] == 1 and all(ran.codes[r] != 0 for r in gone), ran
    # bounded: rank 0 ended within its waits (10 s for the others' results, 5 after a crash; then at most
    # 5 for the ranks that answered to leave together) plus the time to write the report
    waited = float((run_path := torchrun.path / "done.0").read_text()) - float((torchrun.path / "end.0").read_text())
    assert waited < 10 + 5 + 10, (waited, run_path)
    if where == "after training":
        assert waited >= 9.5, waited  # it did wait for the missing ranks, the time it was given
        assert ran.report["status"] == "completed"
    else:
        assert ran.report["status"] == "crashed"  # rank 0's backward failed when its peer vanished
