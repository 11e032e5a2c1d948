"""GradDoctorCallback under the real Lightning Trainer: findings, their lines, hygiene."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

pl = pytest.importorskip("lightning.pytorch")

from graddoctor.integrations.core import GradDoctorFailed  # noqa: E402
from graddoctor.integrations.lightning import GradDoctorCallback  # noqa: E402
from graddoctor.session import dispatch  # noqa: E402
from graddoctor.session.observer import Observer  # noqa: E402
from graddoctor.session.session import Session  # noqa: E402

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:.*LeafSpec.*:FutureWarning"),  # inside Lightning 2.6 itself
]
ORIGINAL_BACKWARD = torch.autograd.backward


def line_of(marker: str) -> int:
    with open(__file__, encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if text.rstrip().endswith(f"# <- {marker}"):
                return number
    raise AssertionError(marker)


class Net(pl.LightningModule):
    def __init__(self, freeze_aux: bool = False, fail: bool = False):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 3)  # never used in training_step
        if freeze_aux:
            self.aux.requires_grad_(False)
        self.fail = fail

    def training_step(self, batch, batch_idx):
        x, y = batch
        if self.fail and batch_idx == 1:
            raise ValueError("bad batch")  # <- raise
        loss = nn.functional.mse_loss(self.head(torch.relu(self.body(x))), y)
        return loss  # <- return loss

    def configure_optimizers(self):
        return torch.optim.SGD([p for p in self.parameters() if p.requires_grad], lr=0.05)  # <- optimizer


class ManualGAN(pl.LightningModule):
    """Two optimizers, manual optimization, fake.detach() for the discriminator: correct code."""

    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.gen = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
        self.disc = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))

    def training_step(self, batch, batch_idx):
        (real,) = batch
        opt_g, opt_d = self.optimizers()
        bce = nn.functional.binary_cross_entropy_with_logits
        fake = self.gen(torch.randn_like(real))
        d_loss = bce(self.disc(real), torch.ones(len(real), 1)) + bce(self.disc(fake.detach()), torch.zeros(len(real), 1))
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        g_loss = bce(self.disc(fake), torch.ones(len(real), 1))
        opt_g.zero_grad()
        self.manual_backward(g_loss)  # <- manual backward
        opt_g.step()

    def configure_optimizers(self):
        return torch.optim.Adam(self.gen.parameters(), lr=1e-3), torch.optim.Adam(self.disc.parameters(), lr=1e-3)


class Scheduled(Net):
    """Per-batch OneCycleLR with gradient clipping and accumulation by the Trainer: correct code."""

    def __init__(self):
        super().__init__(freeze_aux=True)

    def configure_optimizers(self):
        opt = torch.optim.SGD([p for p in self.parameters() if p.requires_grad], lr=0.05)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=20)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


class DistilledEMA(pl.LightningModule):
    """A frozen teacher under no_grad and an EMA copy updated under no_grad: correct code."""

    def __init__(self):
        super().__init__()
        self.student = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        self.teacher = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).requires_grad_(False)
        self.ema = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).requires_grad_(False)

    def training_step(self, batch, batch_idx):
        x, y = batch
        with torch.no_grad():
            target = self.teacher(x)
        out = self.student(x)
        loss = nn.functional.mse_loss(out, y) + nn.functional.mse_loss(out, target)
        self.log("loss", loss.item())
        return loss

    def on_train_batch_end(self, outputs, batch, batch_idx):
        with torch.no_grad():
            for e, p in zip(self.ema.parameters(), self.student.parameters()):
                e.mul_(0.9).add_(p, alpha=0.1)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.student.parameters(), lr=1e-3)


def loader(n: int = 32, gan: bool = False) -> DataLoader:
    g = torch.Generator().manual_seed(0)
    if gan:
        return DataLoader(TensorDataset(torch.randn(n, 4, generator=g)), batch_size=8)
    return DataLoader(TensorDataset(torch.randn(n, 4, generator=g), torch.randn(n, 1, generator=g)), batch_size=8)


def fit(module, callback, max_steps: int = 3, **trainer_options) -> None:
    trainer = pl.Trainer(
        max_steps=max_steps, logger=False, enable_checkpointing=False, enable_progress_bar=False,
        enable_model_summary=False, accelerator="cpu", devices=1, callbacks=[callback], **trainer_options,
    )
    trainer.fit(module, loader(gan=isinstance(module, ManualGAN)))


def assert_detached():
    assert dispatch.active_sessions() == []
    assert torch.autograd.backward is ORIGINAL_BACKWARD


def serious(report):
    return [f"{f.code} {f.file}:{f.line} {f.message}" for f in report.findings if f.severity >= 2]


def test_unused_head_fires_gd104_at_the_training_step_return_line(capsys):
    callback = GradDoctorCallback()
    fit(Net(), callback)
    assert_detached()
    report = callback.report()
    (finding,) = [f for f in report.findings if f.code == "GD104"]
    assert finding.file == "tests/integrations/test_lightning.py" or finding.file.endswith("test_lightning.py")
    assert finding.line == line_of("return loss")
    assert finding.subjects == ["model.aux.weight", "model.aux.bias"]
    assert report.steps_observed == 3
    assert "GD104" in capsys.readouterr().out  # printed at the end of fit


def test_oracle_unused_head_really_has_no_gradient():
    net = Net()
    fit(net, GradDoctorCallback(print_report=False))
    assert net.aux.weight.grad is None and net.head.weight.grad is not None


def test_frozen_unused_head_is_silent():
    callback = GradDoctorCallback(print_report=False)
    fit(Net(freeze_aux=True), callback)
    assert serious(callback.report()) == []


@pytest.mark.parametrize(
    "module, options",
    [
        (ManualGAN, {}),
        (DistilledEMA, {}),
        (Scheduled, {"gradient_clip_val": 1.0, "accumulate_grad_batches": 2}),
    ],
    ids=["manual-gan-two-optimizers", "teacher-and-ema-under-no-grad", "onecycle-clip-accumulate"],
)
def test_correct_lightning_code_is_silent(module, options):
    callback = GradDoctorCallback(print_report=False)
    fit(module(), callback, max_steps=4, **options)
    report = callback.report()
    assert serious(report) == []
    assert report.steps_observed >= 2


def test_events_point_into_the_lightning_module():
    """Lightning runs backward and step from its loop; the lines must be the module's."""
    seen: dict[str, set[int]] = {"backward": set(), "step": set()}

    class Recorder(Observer):
        def before_backward(self, event):
            seen["backward"].add(event.where.line)

        def before_step(self, event):
            seen["step"].add(event.where.line)

    spy = Session([Recorder()]).attach()
    try:
        fit(Net(), GradDoctorCallback(print_report=False))
    finally:
        spy.detach()
    assert seen == {"backward": {line_of("return loss")}, "step": {line_of("optimizer")}}


def test_manual_backward_is_named_where_the_user_calls_it():
    lines: set[int] = set()

    class Recorder(Observer):
        def before_backward(self, event):
            lines.add(event.where.line)

    spy = Session([Recorder()]).attach()
    try:
        fit(ManualGAN(), GradDoctorCallback(print_report=False), max_steps=2)
    finally:
        spy.detach()
    assert line_of("manual backward") in lines


def test_user_exception_propagates_and_hooks_are_removed():
    callback = GradDoctorCallback(print_report=False)
    with pytest.raises(ValueError, match="bad batch"):
        fit(Net(fail=True), callback, max_steps=5)
    assert_detached()
    report = callback.report()
    assert report.status == "crashed"
    assert report.exception["type"] == "ValueError"
    assert report.exception["line"] == line_of("raise")


def test_fail_on_error_raises_after_fit():
    callback = GradDoctorCallback(fail_on="error", print_report=False)
    with pytest.raises(GradDoctorFailed, match="GD104"):
        fit(Net(), callback)
    assert_detached()


def test_bad_fail_on_is_a_clear_error():
    with pytest.raises(ValueError, match="fail_on must be one of"):
        GradDoctorCallback(fail_on="sometimes")


def test_results_are_bit_identical_with_the_callback():
    def trained(callbacks):
        torch.manual_seed(1)
        net = Net()
        trainer = pl.Trainer(max_steps=3, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                             enable_model_summary=False, accelerator="cpu", devices=1, callbacks=callbacks)
        trainer.fit(net, loader())
        return [p.detach().clone() for p in net.parameters()]

    plain = trained([])
    watched = trained([GradDoctorCallback(print_report=False)])
    assert all(torch.equal(a, b) for a, b in zip(plain, watched))
